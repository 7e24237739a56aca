import type { Runtime } from '../infra/local/runtime.ts';
import { seedAccountVia } from '../test/support/http.ts';
import { startFakeProvider } from '../test/support/providers.ts';
import { startReceiver } from '../test/support/receiver.ts';
import { resetConfig } from '#shared/config.ts';
import type { instrument } from './instrument.ts';
import { whatsappText } from './scenarios/channels.ts';
import type { BenchWorld } from './scenarios/types.ts';

// Messaging channels through the local runtime (BENCH_PARTS=channels): a customer's WhatsApp message from the
// provider's webhook to the account webhook's `message_created` (latency, and the table capacity the whole path
// uses: ingest, the inbound consumer, the dispatcher), and an agent's reply from the API write to the provider's
// request and its saved id (latency and capacity: the write, the dispatcher, the send consumer).

export interface ChannelsResult {
  incoming: { samples: number; p50: number; p95: number; max: number; rcu: number; wcu: number };
  outgoing: { samples: number; p50: number; p95: number; max: number; rcu: number; wcu: number };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const r2 = (n: number) => Math.round(n * 100) / 100;

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
        // The first message opens the conversation: its message_created can be dispatched before the conversation
        // item is written, and is then not delivered (the pipeline's, not the channel's): wait for it through the API.
        const listed = async () =>
          (await api.get(`${seeded.base}/conversations?inbox_id=${inbox.body.id}&status=all`)).body?.data?.payload?.[0];
        for (let t = 0; !(await listed()); t++) {
          if (t > 2000) throw new Error('channels bench: the first conversation never came');
          await new Promise((r) => setTimeout(r, 10));
        }
        conversation = (await listed()).id;
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
    const summary = (x: { ms: number[]; rcu: number; wcu: number }) => ({
      samples: x.ms.length,
      p50: pct(x.ms, 50),
      p95: pct(x.ms, 95),
      max: Math.max(...x.ms),
      rcu: r2(x.rcu / x.ms.length),
      wcu: r2(x.wcu / x.ms.length),
    });
    return { incoming: summary(incoming), outgoing: summary(outgoing) };
  } finally {
    if (previous === undefined) delete process.env.WHATSAPP_CLOUD_BASE_URL;
    else process.env.WHATSAPP_CLOUD_BASE_URL = previous;
    resetConfig();
    await receiver.close();
    await graph.close();
    await rt.pipeline.pause();
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
    '',
  ].join('\n');
}
