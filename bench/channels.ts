import type { Runtime } from '../infra/local/runtime.ts';
import { seedAccountVia } from '../test/support/http.ts';
import { startFakeProvider } from '../test/support/providers.ts';
import { startReceiver, type Receiver } from '../test/support/receiver.ts';
import { mailFixture } from '../test/support/mail-fixtures.ts';
import { smtpReceiver } from '../test/support/smtp.ts';
import { observeAwsCalls } from '#shared/aws/observe.ts';
import { resetConfig } from '#shared/config.ts';
import type { instrument } from './instrument.ts';
import { whatsappText } from './scenarios/channels.ts';
import type { BenchWorld } from './scenarios/types.ts';

// Messaging channels through the local runtime (BENCH_PARTS=channels): a customer's WhatsApp message from the
// provider's webhook to the account webhook's `message_created` (latency, and the table capacity the whole path
// uses: ingest, the inbound consumer, the dispatcher), and an agent's reply from the API write to the provider's
// request and its saved id (latency and capacity: the write, the dispatcher, the send consumer). Then email
// (docs/mail.md): a customer's mail with two attachments through the ActionMailbox relay route to the account
// webhook's `message_created` (and the bytes it stores in S3), and an agent's reply in the email inbox from the API
// write to an SMTP server the bench runs on 127.0.0.1.

interface Measured {
  samples: number;
  p50: number;
  p95: number;
  max: number;
  rcu: number;
  wcu: number;
}

export interface ChannelsResult {
  incoming: Measured;
  outgoing: Measured;
  /** Email: a mail in (S3 PUTs and their bytes per mail: its attachments, and the raw mail when above 150 KB). */
  mailIncoming?: Measured & { s3Puts: number; s3Bytes: number; mailBytes: number };
  /** Email: an agent's reply mailed. */
  mailOutgoing?: Measured;
}

interface Samples {
  ms: number[];
  rcu: number;
  wcu: number;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const r2 = (n: number) => Math.round(n * 100) / 100;

const summary = (x: Samples): Measured => ({
  samples: x.ms.length,
  p50: pct(x.ms, 50),
  p95: pct(x.ms, 95),
  max: Math.max(...x.ms),
  rcu: r2(x.rcu / x.ms.length),
  wcu: r2(x.wcu / x.ms.length),
});

/** The id of the first conversation a list answers, waited for (through the API, as a client sees it). */
async function firstConversation(api: { get(path: string): Promise<{ body: any }> }, listPath: string): Promise<number> {
  const listed = async () => (await api.get(listPath)).body?.data?.payload?.[0];
  for (let t = 0; t <= 2000; t++) {
    const c = await listed();
    if (c) return c.id;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`channels bench: no conversation in ${listPath}`);
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`channels bench: ${what} never came`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

export async function benchChannels(
  world: BenchWorld,
  rt: Runtime,
  recorder: ReturnType<typeof instrument>,
  samples = 30,
): Promise<ChannelsResult> {
  const graph = await startFakeProvider();
  let sent = 0;
  graph.on('GET', /message_templates$/, () => ({ json: { data: [] } }));
  graph.on('POST', /\/messages$/, () => ({ json: { messages: [{ id: `wamid.BENCH${++sent}` }] } }));
  const previous = process.env.WHATSAPP_CLOUD_BASE_URL;
  process.env.WHATSAPP_CLOUD_BASE_URL = graph.url;
  resetConfig();
  const receiver = await startReceiver();
  try {
    const seeded = await seedAccountVia(world.baseUrl, world.platform, world.unique('channels'));
    const api = seeded.admin.api;
    const hook = await api.post(`${seeded.base}/webhooks`, { url: receiver.url, subscriptions: ['message_created', 'message_updated'] });
    if (hook.status !== 200) throw new Error(`channels bench webhook: ${hook.status} ${hook.text}`);
    const phone = `+1559${String(process.pid % 1000).padStart(3, '0')}${String(Date.now() % 10_000).padStart(4, '0')}`;
    const inbox = await api.post(`${seeded.base}/inboxes`, {
      name: 'WA bench',
      channel: {
        type: 'whatsapp',
        phone_number: phone,
        provider: 'whatsapp_cloud',
        provider_config: { api_key: 'k', phone_number_id: '100000000000001', business_account_id: '200000000000001' },
      },
    });
    if (inbox.status !== 200) throw new Error(`channels bench inbox: ${inbox.text}`);
    // The pipeline runs from here on (from the stream's tip): its dispatcher's read cache never saw the account
    // without its webhook.
    await rt.pipeline.resume();

    const incoming = { ms: [] as number[], rcu: 0, wcu: 0 };
    let conversation = 0;
    for (let i = 0; i < samples + 3; i++) {
      const id = `wamid.in${world.unique('b').replace(/\W/g, '')}`;
      recorder.take();
      const started = Date.now();
      // One returning customer (an existing conversation), as most traffic is.
      const res = await fetch(`${world.baseUrl}/webhooks/whatsapp/${phone}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: whatsappText(phone, '14445550000', id, `Question ${i}`),
      });
      if (res.status !== 200) throw new Error(`channels bench webhook: ${res.status}`);
      if (i === 0) {
        // The first message opens the conversation (a new customer, not the returning one measured): not timed.
        conversation = await firstConversation(api, `${seeded.base}/conversations?inbox_id=${inbox.body.id}&status=all`);
        recorder.take();
        continue;
      }
      const got = await waitFor(
        () => receiver.received.find((r) => r.json?.event === 'message_created' && r.json.source_id === id),
        `message ${id}`,
      );
      const ms = got.at - started;
      const { calls } = recorder.take();
      conversation = got.json.conversation.id;
      if (i < 3) continue;
      incoming.ms.push(ms);
      incoming.rcu += calls.reduce((t, c) => t + c.rcu, 0);
      incoming.wcu += calls.reduce((t, c) => t + c.wcu, 0);
    }

    const outgoing = { ms: [] as number[], rcu: 0, wcu: 0 };
    for (let i = 0; i < samples + 3; i++) {
      recorder.take();
      const before = graph.requests.length;
      const started = Date.now();
      const m = await api.post(`${seeded.base}/conversations/${conversation}/messages`, { content: `Answer ${i}` });
      await waitFor(() => (graph.requests.length > before ? true : undefined), `the send of ${m.body.id}`);
      const ms = Date.now() - started;
      // Its id saved (a message_updated): the send's bookkeeping is done.
      await waitFor(
        () => receiver.received.find((r) => r.json?.event === 'message_updated' && r.json.id === m.body.id && r.json.source_id),
        `message ${m.body.id} updated`,
      );
      const { calls } = recorder.take();
      if (i < 3) continue;
      outgoing.ms.push(ms);
      outgoing.rcu += calls.reduce((t, c) => t + c.rcu, 0);
      outgoing.wcu += calls.reduce((t, c) => t + c.wcu, 0);
    }
    const mail = await benchMail(world, seeded, receiver, recorder, samples);
    return { incoming: summary(incoming), outgoing: summary(outgoing), ...mail };
  } finally {
    if (previous === undefined) delete process.env.WHATSAPP_CLOUD_BASE_URL;
    else process.env.WHATSAPP_CLOUD_BASE_URL = previous;
    resetConfig();
    await receiver.close();
    await graph.close();
    await rt.pipeline.pause();
  }
}

const bodyBytes = (body: unknown) =>
  typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : 0;

/**
 * Email through the same runtime and account webhook: mails with two attachments (test/fixtures/mail/attachments.eml)
 * from one customer, each answering the first (In-Reply-To: one conversation), through the relay route; then agent
 * replies in that conversation, received by an SMTP server on 127.0.0.1 (SMTP_ADDRESS/SMTP_PORT).
 */
async function benchMail(
  world: BenchWorld,
  seeded: Awaited<ReturnType<typeof seedAccountVia>>,
  receiver: Receiver,
  recorder: ReturnType<typeof instrument>,
  samples: number,
): Promise<Pick<ChannelsResult, 'mailIncoming' | 'mailOutgoing'>> {
  const api = seeded.admin.api;
  const smtp = await smtpReceiver();
  const names = ['SMTP_ADDRESS', 'SMTP_PORT', 'MAILER_INBOUND_EMAIL_DOMAIN'] as const;
  const previous = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  Object.assign(process.env, {
    SMTP_ADDRESS: smtp.host,
    SMTP_PORT: String(smtp.port),
    MAILER_INBOUND_EMAIL_DOMAIN: 'inbound.bench.example',
  });
  resetConfig();
  let s3 = { puts: 0, bytes: 0 };
  observeAwsCalls((call) => {
    if (call.client !== 'S3Client' || call.command !== 'PutObjectCommand') return;
    s3.puts++;
    s3.bytes += bodyBytes(call.input.Body);
  });
  try {
    const address = `${world.unique('support')}@bench.example`;
    const inbox = await api.post(`${seeded.base}/inboxes`, { name: 'Mail bench', channel: { type: 'email', email: address } });
    if (inbox.status !== 200) throw new Error(`channels bench mail inbox: ${inbox.text}`);
    const password = process.env.RAILS_INBOUND_EMAIL_PASSWORD ?? '';
    const relay = (raw: Buffer) =>
      fetch(`${world.baseUrl}/rails/action_mailbox/relay/inbound_emails`, {
        method: 'POST',
        headers: {
          'content-type': 'message/rfc822',
          authorization: `Basic ${Buffer.from(`actionmailbox:${password}`).toString('base64')}`,
        },
        body: raw,
      });

    const incoming: Samples = { ms: [], rcu: 0, wcu: 0 };
    const stored = { puts: 0, bytes: 0, mail: 0 };
    let first = '';
    let conversation = 0;
    for (let i = 0; i < samples + 3; i++) {
      const messageId = `${world.unique('mail').replace(/\W/g, '')}@customer.example`;
      const raw = mailFixture('attachments', { to: address, messageId, headers: first ? [`In-Reply-To: <${first}>`] : [] });
      recorder.take();
      s3 = { puts: 0, bytes: 0 };
      const started = Date.now();
      const res = await relay(raw);
      if (res.status !== 204) throw new Error(`channels bench relay: ${res.status} ${await res.text()}`);
      if (!first) {
        // The first mail opens the conversation (see the WhatsApp part above): not timed.
        first = messageId;
        conversation = await firstConversation(api, `${seeded.base}/conversations?inbox_id=${inbox.body.id}&status=all`);
        recorder.take();
        continue;
      }
      const got = await waitFor(
        () => receiver.received.find((r) => r.json?.event === 'message_created' && r.json.source_id === messageId),
        `mail ${messageId}`,
      );
      const ms = got.at - started;
      const { calls } = recorder.take();
      if (got.json.conversation.id !== conversation) throw new Error('channels bench: a reply mail opened another conversation');
      if (i < 3) continue;
      incoming.ms.push(ms);
      incoming.rcu += calls.reduce((t, c) => t + c.rcu, 0);
      incoming.wcu += calls.reduce((t, c) => t + c.wcu, 0);
      stored.puts += s3.puts;
      stored.bytes += s3.bytes;
      stored.mail += raw.length;
    }

    const outgoing: Samples = { ms: [], rcu: 0, wcu: 0 };
    for (let i = 0; i < samples + 3; i++) {
      recorder.take();
      const before = smtp.mails.length;
      const started = Date.now();
      const m = await api.post(`${seeded.base}/conversations/${conversation}/messages`, { content: `**Answer** ${i}` });
      if (m.status !== 200) throw new Error(`channels bench mail reply: ${m.status} ${m.text}`);
      await waitFor(() => (smtp.mails.length > before ? true : undefined), `the mail of ${m.body.id}`);
      const ms = Date.now() - started;
      // Its Message-ID saved as source_id (a message_updated): the send's bookkeeping is done.
      await waitFor(
        () => receiver.received.find((r) => r.json?.event === 'message_updated' && r.json.id === m.body.id && r.json.source_id),
        `message ${m.body.id} updated`,
      );
      const { calls } = recorder.take();
      if (i < 3) continue;
      outgoing.ms.push(ms);
      outgoing.rcu += calls.reduce((t, c) => t + c.rcu, 0);
      outgoing.wcu += calls.reduce((t, c) => t + c.wcu, 0);
    }
    const n = incoming.ms.length;
    return {
      mailIncoming: {
        ...summary(incoming),
        s3Puts: r2(stored.puts / n),
        s3Bytes: Math.round(stored.bytes / n),
        mailBytes: Math.round(stored.mail / n),
      },
      mailOutgoing: summary(outgoing),
    };
  } finally {
    observeAwsCalls(undefined);
    for (const n of names) {
      if (previous[n] === undefined) delete process.env[n];
      else process.env[n] = previous[n];
    }
    resetConfig();
    await smtp.close();
  }
}

export function channelsMarkdown(c: ChannelsResult): string {
  return [
    '## Messaging channels',
    '',
    'WhatsApp Cloud through the local runtime, a fake Graph API on 127.0.0.1 (docs/channels.md). Capacity units: every table call of the whole path, pipeline included.',
    '',
    '| measure | p50 / p95 / max | RCU / WCU per message |',
    '|---|---|---|',
    `| incoming: provider webhook → stored → account webhook \`message_created\` (${c.incoming.samples} sequential, one returning customer) | ${c.incoming.p50} / ${c.incoming.p95} / ${c.incoming.max} ms | ${c.incoming.rcu} / ${c.incoming.wcu} |`,
    `| outgoing: agent's API write → the provider's request (${c.outgoing.samples} sequential); capacity until its id is saved | ${c.outgoing.p50} / ${c.outgoing.p95} / ${c.outgoing.max} ms | ${c.outgoing.rcu} / ${c.outgoing.wcu} |`,
    ...(c.mailIncoming && c.mailOutgoing
      ? [
          '',
          'Email through the same runtime (docs/mail.md#cost): the mail is test/fixtures/mail/attachments.eml (two small files), from one customer answering its first mail (one conversation); replies go to an SMTP server on 127.0.0.1.',
          '',
          '| measure | p50 / p95 / max | RCU / WCU per mail | S3 per mail |',
          '|---|---|---|---|',
          `| incoming: raw mail (${c.mailIncoming.mailBytes} bytes) to the relay route → stored → account webhook \`message_created\` (${c.mailIncoming.samples} sequential) | ${c.mailIncoming.p50} / ${c.mailIncoming.p95} / ${c.mailIncoming.max} ms | ${c.mailIncoming.rcu} / ${c.mailIncoming.wcu} | ${c.mailIncoming.s3Puts} PUTs, ${c.mailIncoming.s3Bytes} bytes |`,
          `| outgoing: agent's API write in an email inbox → received by the SMTP server (${c.mailOutgoing.samples} sequential); capacity until its Message-ID is saved as \`source_id\` | ${c.mailOutgoing.p50} / ${c.mailOutgoing.p95} / ${c.mailOutgoing.max} ms | ${c.mailOutgoing.rcu} / ${c.mailOutgoing.wcu} | none |`,
        ]
      : []),
    '',
  ].join('\n');
}
