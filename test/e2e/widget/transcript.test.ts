import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THROTTLES, type Throttle } from '#shared/domain/throttles.ts';
import { overrideEnv } from '../../support/env.ts';
import { expectErrorBody, runtime, seedAccount, unique, type Client, type Res, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { smtpReceiver } from '../../support/smtp.ts';
import { fromAddress } from '../sessions/fixtures.ts';
import { ok, openWidget, widgetInbox, type WidgetInbox } from './fixtures.ts';

// The widget's transcript as an attacker would use it for a mail relay: a visitor sets its contact's email
// to anyone's and asks again and again. The mail goes only to the contact's own email (never an address
// given with the request), and each mail takes a slot per conversation, visitor, recipient and address.

const W = '/api/v1/widget';

function expectThrottled(res: Res, t: Throttle) {
  expect(expectErrorBody(res, 429).errors[0]!.code).toBe('rate_limited');
  const retry = Number(res.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(t.windowSeconds);
}

/** Waits, if needed, so that the next seconds stay inside one window (all transcript windows are an hour). */
async function awayFromWindowEdge(marginSeconds = 20) {
  const left = 3600 - (Math.floor(Date.now() / 1000) % 3600);
  if (left < marginSeconds) await new Promise((r) => setTimeout(r, (left + 1) * 1000));
}

describe('widget transcript mail: own address only, throttled', { timeout: 120_000 }, () => {
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  let restoreEnv: () => void;
  let baseUrl: string;
  let s: SeededAccount;
  let inbox: WidgetInbox;

  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    smtp = await smtpReceiver();
    restoreEnv = overrideEnv({ SMTP_ADDRESS: smtp.host, SMTP_PORT: String(smtp.port) });
    s = await seedAccount();
    inbox = await widgetInbox(s);
    await awayFromWindowEdge();
  });
  afterAll(async () => {
    restoreEnv?.();
    await smtp?.close();
  });

  /** A visitor with a conversation (one message) and, when given, its contact's email. */
  async function visitor(api: Client, email?: string, on: WidgetInbox = inbox) {
    const v = await openWidget(api, on);
    const q = `website_token=${encodeURIComponent(on.website_token)}`;
    const h = { 'X-Auth-Token': v.auth_token };
    if (email) ok(await api.patch(`${W}/contact?${q}`, { email }, h), 'contact email');
    ok(await api.post(`${W}/messages?${q}`, { message: { content: 'Hello' } }, h), 'message');
    return {
      /** Asks for the transcript, from `from` (another client address) when given. */
      transcript: (from: Client = api, body?: unknown, query = '') => from.post(`${W}/conversations/transcript?${q}${query}`, body, h),
      newConversation: async () =>
        ok(await api.post(`${W}/conversations?${q}`, { contact: {}, message: { content: 'Again' } }, h), 'conversation'),
      setEmail: async (e: string) => ok(await api.patch(`${W}/contact?${q}`, { email: e }, h), 'contact email'),
    };
  }
  const mailsTo = (to: string) => smtp.mails.filter((m) => m.envelopeTo.includes(to));

  it("goes only to the contact's own email, never to an address named in the request", async () => {
    const own = `${unique('own-')}@example.com`;
    const other = `${unique('victim-')}@example.com`;
    const v = await visitor(fromAddress(baseUrl), own);
    const res = await v.transcript(undefined, { email: other, contact: { email: other } }, `&email=${encodeURIComponent(other)}`);
    expect(res.status).toBe(200);
    const [mail] = await untilState(
      async () => mailsTo(own),
      (ms) => ms.length >= 1,
    );
    expect(mail!.headers.to).toBe(own);
    expect(mail!.envelopeTo).toEqual([own]);
    expect(mailsTo(other)).toEqual([]);
    // A visitor without an email: answered alike, nothing mailed, no slot taken.
    const anonymous = await visitor(fromAddress(baseUrl));
    for (let i = 0; i <= THROTTLES.transcriptConversation.max; i++)
      expect((await anonymous.transcript(undefined, { email: other })).status).toBe(200);
    expect(mailsTo(other)).toEqual([]);
  });

  it('per conversation: the 4th transcript within the hour is 429, whatever the address asking', async () => {
    const email = `${unique('conv-')}@example.com`;
    const v = await visitor(fromAddress(baseUrl), email);
    for (let i = 0; i < THROTTLES.transcriptConversation.max; i++) expect((await v.transcript(fromAddress(baseUrl))).status).toBe(200);
    expectThrottled(await v.transcript(fromAddress(baseUrl)), THROTTLES.transcriptConversation);
    const mails = await untilState(
      async () => mailsTo(email),
      (ms) => ms.length >= THROTTLES.transcriptConversation.max,
    );
    expect(mails).toHaveLength(THROTTLES.transcriptConversation.max);
  });

  it('per visitor: at most 5 within the hour across its conversations and emails', async () => {
    const v = await visitor(fromAddress(baseUrl), `${unique('v-')}@example.com`);
    for (let i = 0; i < THROTTLES.transcriptConversation.max; i++) expect((await v.transcript(fromAddress(baseUrl))).status).toBe(200);
    await v.newConversation();
    await v.setEmail(`${unique('v2-')}@example.com`);
    const left = THROTTLES.transcriptVisitor.max - THROTTLES.transcriptConversation.max;
    for (let i = 0; i < left; i++) expect((await v.transcript(fromAddress(baseUrl))).status).toBe(200);
    expectThrottled(await v.transcript(fromAddress(baseUrl)), THROTTLES.transcriptVisitor);
  });

  it('per recipient: at most 5 within the hour to one email, whoever asks', async () => {
    const victim = `${unique('target-')}@example.com`;
    // Visitors of two accounts (an email is one contact per account), each from its own address.
    const other = await seedAccount();
    const otherInbox = await widgetInbox(other);
    const first = await visitor(fromAddress(baseUrl), victim);
    const second = await visitor(fromAddress(baseUrl), victim, otherInbox);
    for (let i = 0; i < THROTTLES.transcriptConversation.max; i++) expect((await first.transcript()).status).toBe(200);
    const left = THROTTLES.transcriptRecipient.max - THROTTLES.transcriptConversation.max;
    for (let i = 0; i < left; i++) expect((await second.transcript()).status).toBe(200);
    expectThrottled(await second.transcript(), THROTTLES.transcriptRecipient);
  });

  it('per client address: at most 10 within the hour, whatever the visitors', async () => {
    const from = fromAddress(baseUrl);
    const visitors = await Promise.all(Array.from({ length: 4 }, () => visitor(fromAddress(baseUrl), `${unique('ip-')}@example.com`)));
    let sent = 0;
    for (const v of visitors) {
      for (let i = 0; i < THROTTLES.transcriptConversation.max && sent < THROTTLES.transcriptAddress.max; i++, sent++) {
        expect((await v.transcript(from)).status).toBe(200);
      }
    }
    expectThrottled(await visitors[3]!.transcript(from), THROTTLES.transcriptAddress);
    // The same visitor from another address still may.
    expect((await visitors[3]!.transcript(fromAddress(baseUrl))).status).toBe(200);
  });
});
