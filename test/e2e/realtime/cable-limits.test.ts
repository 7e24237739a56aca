import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '#shared/crypto/tokens.ts';
import * as keys from '#shared/db/keys.ts';
import { getItem } from '#shared/db/repositories/common.ts';
import { MAX_FRAMES_PER_MINUTE, MAX_SOCKETS_PER_ADDRESS } from '#shared/realtime/protocol.ts';
import { client, runtime, seedAccount, unique, type Client } from '../../support/runtime.ts';
import { connectCable, HandshakeRefused, type CableClient } from '../../support/cable.ts';
import { newInbox, ok } from '../conversations/fixtures.ts';

// An anonymous client against /cable: a socket that floods frames (presence updates cost a write and a
// query each) is cut off, and one client address cannot hold more than its share of sockets.

const loopback = () => `127.${randomInt(1, 250)}.${randomInt(1, 250)}.${randomInt(2, 250)}`;

describe('/cable limits', { timeout: 120_000 }, () => {
  let baseUrl: string;
  let pub: Client;
  let inboxIdentifier: string;
  const open: CableClient[] = [];

  const connect = async (localAddress?: string) => {
    const c = await connectCable(baseUrl, { localAddress });
    open.push(c);
    await c.waitFor((f) => f.type === 'welcome');
    return c;
  };
  /** An anonymous visitor's socket, subscribed with its contact inbox's pubsub token. */
  const visitorSocket = async (localAddress?: string) => {
    const v = ok(await pub.post(`/public/api/v1/inboxes/${inboxIdentifier}/contacts`, { name: unique('Visitor ') }), 'contact');
    const c = await connect(localAddress);
    const identifier = c.subscribe({ pubsub_token: v.pubsub_token });
    await c.waitFor((f) => f.type === 'confirm_subscription' && f.identifier === identifier);
    return { c, identifier };
  };
  const presence = (s: { c: CableClient; identifier: string }) =>
    s.c.send({ command: 'message', identifier: s.identifier, data: JSON.stringify({ action: 'update_presence' }) });
  const socketCount = async (address: string) => (await getItem<{ n: number }>(keys.cableAddressCount(hashToken(address)), true))?.n ?? 0;

  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    pub = client(baseUrl);
    const s = await seedAccount();
    inboxIdentifier = ((await newInbox(s)) as unknown as { inbox_identifier: string }).inbox_identifier;
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
  });

  it('a socket flooding presence updates is closed (1008) once over its frames per minute; others go on', async () => {
    // Inside one minute (the frame window is a fixed minute).
    const left = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (left < 15) await new Promise((r) => setTimeout(r, (left + 1) * 1000));
    const bystander = await visitorSocket();
    const flooder = await visitorSocket();
    for (let i = 0; i < 500; i++) presence(flooder);
    const { code } = await flooder.c.closed;
    expect(code).toBe(1008);
    // Handled (answered) at most the frames of its minute: the subscribe (answered with the presence too)
    // and the updates after it.
    const answered = flooder.c.events('presence.update').length;
    console.log(`/cable flood: 500 presence frames sent, ${answered} answered before the close`);
    expect(answered).toBeLessThanOrEqual(MAX_FRAMES_PER_MINUTE);
    // The bystander's socket is untouched: it still gets pings and its presence answers.
    presence(bystander);
    await bystander.c.waitForEvent('presence.update');
    const pings = () => bystander.c.received.filter((r) => r.frame.type === 'ping').length;
    const before = pings();
    await bystander.c.waitFor(() => pings() > before);
    expect(bystander.c.ws.readyState).toBe(bystander.c.ws.OPEN);
  });

  it('a socket within its limit is not closed', async () => {
    const calm = await visitorSocket();
    for (let i = 0; i < MAX_FRAMES_PER_MINUTE - 5; i++) presence(calm);
    await calm.c.waitFor(() => calm.c.events('presence.update').length >= MAX_FRAMES_PER_MINUTE - 5);
    expect(calm.c.ws.readyState).toBe(calm.c.ws.OPEN);
  });

  it(`refuses the handshake of one socket more than ${MAX_SOCKETS_PER_ADDRESS} from one address (429), and counts a closed one out`, async () => {
    const address = loopback();
    const mine: CableClient[] = [];
    for (let i = 0; i < MAX_SOCKETS_PER_ADDRESS; i += 10) {
      mine.push(...(await Promise.all(Array.from({ length: Math.min(10, MAX_SOCKETS_PER_ADDRESS - i) }, () => connect(address)))));
    }
    expect(await socketCount(address)).toBe(MAX_SOCKETS_PER_ADDRESS);
    // Parallel attempts past the limit: every one refused.
    const extra = await Promise.allSettled(Array.from({ length: 5 }, () => connectCable(baseUrl, { localAddress: address })));
    for (const r of extra) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason;
      expect(err).toBeInstanceOf(HandshakeRefused);
      expect(err.status).toBe(429);
      expect(Number(err.retryAfter)).toBeGreaterThan(0);
    }
    expect(await socketCount(address)).toBe(MAX_SOCKETS_PER_ADDRESS);
    // Another address is not affected.
    await connect(loopback());
    // A closed socket gives its slot back.
    await mine.pop()!.close();
    await expect.poll(() => socketCount(address), { timeout: 10_000 }).toBe(MAX_SOCKETS_PER_ADDRESS - 1);
    mine.push(await connect(address));
    await Promise.all(mine.map((c) => c.close()));
    await expect.poll(() => socketCount(address), { timeout: 10_000 }).toBe(0);
  });
});
