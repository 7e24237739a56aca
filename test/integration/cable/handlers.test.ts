import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as connect } from '../../../functions/cable/connect.ts';
import { handler as dflt } from '../../../functions/cable/default.ts';
import { handler as disconnect } from '../../../functions/cable/disconnect.ts';
import type { WebSocketEvent } from '#shared/realtime/websocket-event.ts';
import { overrideEnv } from '../../support/env.ts';
import { getConnection, listAccountSubscriptions, putConnection, touchPresence } from '#shared/db/repositories/cable.ts';
import { presenceData, PRESENCE_SECONDS } from '#shared/realtime/connections.ts';
import { MAX_FRAMES_PER_MINUTE, MAX_SOCKETS_PER_ADDRESS } from '#shared/realtime/protocol.ts';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { hashToken } from '#shared/crypto/tokens.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { getItem } from '#shared/db/repositories/common.ts';
import { runPinger } from '#shared/realtime/pinger.ts';
import { cableSender } from '#shared/realtime/senders.ts';
import { client, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { newInbox, ok } from '../../e2e/conversations/fixtures.ts';
import { until } from '../../support/until.ts';

// The deployed socket functions and the broadcast stage against DynamoDB Local, with API Gateway's
// management API stubbed at the SDK boundary: every PostToConnection is recorded, and connections
// named gone answer GoneException (410) as API Gateway does.

const posted: { connectionId: string; frame: any }[] = [];
const deleted: string[] = [];
const gone = new Set<string>();

const wsEvent = (routeKey: string, connectionId: string, extra: Partial<WebSocketEvent> = {}, sourceIp = '127.0.0.1'): WebSocketEvent =>
  ({
    requestContext: {
      routeKey,
      connectionId,
      eventType: routeKey === '$connect' ? 'CONNECT' : routeKey === '$disconnect' ? 'DISCONNECT' : 'MESSAGE',
      stage: 'cable',
      domainName: 'x.execute-api.local',
      apiId: 'x',
      requestId: 'r',
      connectedAt: Date.now(),
      requestTimeEpoch: Date.now(),
      messageDirection: 'IN',
      extendedRequestId: 'e',
      messageId: 'm',
      identity: { sourceIp },
    } as never,
    isBase64Encoded: false,
    ...extra,
  }) as WebSocketEvent;

const newId = () => `${randomBytes(9).toString('base64')}=`;
const framesTo = (id: string) => posted.filter((p) => p.connectionId === id).map((p) => p.frame);
// How long a wait of this file lasts before it fails.
const WAIT = { timeoutMs: 15_000 };

describe('deployed /cable functions', () => {
  let s: SeededAccount;
  let visitor: { source_id: string; pubsub_token: string; id: number };
  let inbox: { id: number; inbox_identifier: string };
  let baseUrl: string;
  let restoreEnv: () => void;

  beforeAll(async () => {
    baseUrl = (await runtime()).baseUrl;
    s = await seedAccount();
    inbox = (await newInbox(s)) as never;
    visitor = ok(
      await client(baseUrl).post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts`, { name: unique('V ') }),
      'contact',
    );
    restoreEnv = overrideEnv({ CABLE_ENDPOINT: 'https://x.execute-api.us-east-1.amazonaws.com/cable' });
    vi.spyOn(ApiGatewayManagementApiClient.prototype, 'send').mockImplementation(async (command: unknown) => {
      if (command instanceof DeleteConnectionCommand) {
        deleted.push(command.input.ConnectionId!);
        return {} as never;
      }
      if (!(command instanceof PostToConnectionCommand)) throw new Error('unexpected command');
      const { ConnectionId, Data } = command.input;
      if (gone.has(ConnectionId!)) throw new GoneException({ message: 'Gone', $metadata: { httpStatusCode: 410 } });
      posted.push({ connectionId: ConnectionId!, frame: JSON.parse(Buffer.from(Data as Uint8Array).toString('utf8')) });
      return {} as never;
    });
  });
  afterEach(() => {
    posted.length = 0;
    gone.clear();
  });
  afterAll(() => {
    vi.restoreAllMocks();
    restoreEnv?.();
  });

  it('$connect records the connection and answers the ActionCable sub-protocol only when offered', async () => {
    const id = newId();
    const res = await connect(
      wsEvent('$connect', id, { headers: { 'Sec-WebSocket-Protocol': 'actioncable-v1-json, actioncable-unsupported' } }),
    );
    expect(res).toEqual({ statusCode: 200, headers: { 'Sec-WebSocket-Protocol': 'actioncable-v1-json' } });
    const record = await getConnection(id);
    expect(record).toMatchObject({ connection_id: id, welcomed: false, subscriptions: [] });
    expect(record!.expires_at - record!.connected_at).toBeGreaterThanOrEqual(2 * 3600_000);

    const bare = await connect(wsEvent('$connect', newId(), { headers: {} }));
    expect(bare).toEqual({ statusCode: 200 });
  });

  it('$default confirms or rejects subscriptions and answers update_presence, all through PostToConnection', async () => {
    const id = newId();
    await connect(wsEvent('$connect', id));
    const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: visitor.pubsub_token });
    await dflt(wsEvent('$default', id, { body: JSON.stringify({ command: 'subscribe', identifier }) }));
    expect(framesTo(id)[0]).toEqual({ identifier, type: 'confirm_subscription' });
    expect(framesTo(id)[1]).toMatchObject({ identifier, message: { event: 'presence.update', data: { account_id: s.accountId } } });

    const bad = JSON.stringify({ channel: 'RoomChannel', pubsub_token: 'wrong' });
    await dflt(wsEvent('$default', id, { body: JSON.stringify({ command: 'subscribe', identifier: bad }) }));
    expect(framesTo(id).at(-1)).toEqual({ identifier: bad, type: 'reject_subscription' });

    posted.length = 0;
    await dflt(
      wsEvent('$default', id, {
        body: JSON.stringify({ command: 'message', identifier, data: JSON.stringify({ action: 'update_presence' }) }),
      }),
    );
    expect(framesTo(id)).toHaveLength(1);
    expect(framesTo(id)[0].message.event).toBe('presence.update');

    // Binary and malformed frames: nothing sent, nothing thrown.
    posted.length = 0;
    expect(await dflt(wsEvent('$default', id, { body: 'AAEC', isBase64Encoded: true }))).toEqual({ statusCode: 200 });
    expect(await dflt(wsEvent('$default', id, { body: '{oops' }))).toEqual({ statusCode: 200 });
    expect(posted).toEqual([]);
  });

  it(`$connect refuses one socket more than ${MAX_SOCKETS_PER_ADDRESS} from one address (429); $disconnect gives the slot back`, async () => {
    const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const ids = Array.from({ length: MAX_SOCKETS_PER_ADDRESS }, newId);
    for (let i = 0; i < ids.length; i += 20) {
      const answers = await Promise.all(ids.slice(i, i + 20).map((id) => connect(wsEvent('$connect', id, {}, address))));
      for (const a of answers) expect(a).toEqual({ statusCode: 200 });
    }
    const refusedId = newId();
    expect(await connect(wsEvent('$connect', refusedId, {}, address))).toEqual({ statusCode: 429, headers: { 'Retry-After': '60' } });
    expect(await getConnection(refusedId)).toBeUndefined();
    expect(await connect(wsEvent('$connect', newId(), {}, `${address}1`))).toMatchObject({ statusCode: 200 });
    await disconnect(wsEvent('$disconnect', ids[0]!, {}, address));
    // A second $disconnect of the same connection (or a GoneException's removal after it) gives nothing back twice.
    await disconnect(wsEvent('$disconnect', ids[0]!, {}, address));
    expect(await connect(wsEvent('$connect', newId(), {}, address))).toMatchObject({ statusCode: 200 });
    expect(await connect(wsEvent('$connect', newId(), {}, address))).toMatchObject({ statusCode: 429 });
    await Promise.all(ids.slice(1).map((id) => disconnect(wsEvent('$disconnect', id, {}, address))));
  });

  it('$connect admits again once a full socket count outlived its expiry (counts lost disconnects left behind)', async () => {
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const key = keys.cableAddressCount(hashToken(address));
    const now = Math.floor(Date.now() / 1000);
    await db().send(
      new PutCommand({ TableName: tableName(), Item: { ...key, type: 'cable_address', n: MAX_SOCKETS_PER_ADDRESS, ttl: now + 60 } }),
    );
    expect(await connect(wsEvent('$connect', newId(), {}, address))).toMatchObject({ statusCode: 429 });
    await db().send(
      new PutCommand({ TableName: tableName(), Item: { ...key, type: 'cable_address', n: MAX_SOCKETS_PER_ADDRESS, ttl: now - 1 } }),
    );
    const id = newId();
    expect(await connect(wsEvent('$connect', id, {}, address))).toMatchObject({ statusCode: 200 });
    const item = (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
    expect(item?.n).toBe(1);
    expect(item!.ttl).toBeGreaterThan(now + 3600);
    await disconnect(wsEvent('$disconnect', id, {}, address));
    expect((await getItem<{ n: number }>(key, true))?.n).toBe(0);
  });

  it(`$default closes a connection over ${MAX_FRAMES_PER_MINUTE} frames a minute (DeleteConnection) and handles nothing past it`, async () => {
    // Inside one minute (the frame window is a fixed minute).
    const left = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (left < 10) await new Promise((r) => setTimeout(r, (left + 1) * 1000));
    const id = newId();
    await connect(wsEvent('$connect', id));
    const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: visitor.pubsub_token });
    await dflt(wsEvent('$default', id, { body: JSON.stringify({ command: 'subscribe', identifier }) }));
    const presence = () =>
      dflt(
        wsEvent('$default', id, {
          body: JSON.stringify({ command: 'message', identifier, data: JSON.stringify({ action: 'update_presence' }) }),
        }),
      );
    const answers = await Promise.all(Array.from({ length: 60 }, presence));
    for (const a of answers) expect(a).toEqual({ statusCode: 200 });
    // The subscribe and the updates handled are at most the minute's frames (each answered with the presence).
    const handled = framesTo(id).filter((f) => f.message?.event === 'presence.update').length;
    expect(handled).toBeGreaterThan(0);
    expect(handled).toBeLessThanOrEqual(MAX_FRAMES_PER_MINUTE);
    expect(deleted.filter((d) => d === id).length).toBeGreaterThanOrEqual(60 - MAX_FRAMES_PER_MINUTE);
  });

  it('$disconnect removes the connection and its subscriptions', async () => {
    const id = newId();
    await connect(wsEvent('$connect', id));
    const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: visitor.pubsub_token });
    await dflt(wsEvent('$default', id, { body: JSON.stringify({ command: 'subscribe', identifier }) }));
    expect((await listAccountSubscriptions(s.accountId)).some((x) => x.connection_id === id)).toBe(true);
    await disconnect(wsEvent('$disconnect', id));
    expect(await getConnection(id)).toBeUndefined();
    expect((await listAccountSubscriptions(s.accountId)).some((x) => x.connection_id === id)).toBe(false);
  });

  it('the broadcast stage posts pipeline events with PostToConnection and removes connections that are gone', async () => {
    const live = newId();
    const dead = newId();
    const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: visitor.pubsub_token });
    for (const id of [live, dead]) {
      await connect(wsEvent('$connect', id));
      await dflt(wsEvent('$default', id, { body: JSON.stringify({ command: 'subscribe', identifier }) }));
    }
    gone.add(dead);
    const api = client(baseUrl);
    const conv = ok(
      await api.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${visitor.source_id}/conversations`, {}),
      'conversation',
    );
    const reply = ok(await s.admin.api.post(`${s.base}/conversations/${conv.id}/messages`, { content: 'over the API' }), 'reply');
    const frame = await until(
      () => framesTo(live).find((f) => f.message?.event === 'message.created' && f.message.data.id === reply.id),
      WAIT,
    );
    expect(frame).toMatchObject({
      identifier,
      message: { data: { content: 'over the API', account_id: s.accountId, conversation_id: conv.id } },
    });
    // The gone connection was tried once, then forgotten with its subscriptions.
    await until(async () => !(await getConnection(dead)), WAIT);
    expect((await listAccountSubscriptions(s.accountId)).some((x) => x.connection_id === dead)).toBe(false);
    expect(await getConnection(live)).toBeDefined();
  });

  it('presence lapses a minute after the last update', async () => {
    const now = Math.floor(Date.now() / 1000);
    await touchPresence({ account_id: s.accountId, kind: 'user', id: s.agent.id, seen_at: now - PRESENCE_SECONDS - 1 }, 120);
    await touchPresence({ account_id: s.accountId, kind: 'user', id: s.admin.id, seen_at: now }, 120);
    await touchPresence({ account_id: s.accountId, kind: 'contact', id: visitor.id, seen_at: now - PRESENCE_SECONDS + 5 }, 120);
    const data = await presenceData(s.accountId);
    expect(data.users[String(s.admin.id)]).toBe('online');
    expect(data.users[String(s.agent.id)]).toBeUndefined();
    expect(data.contacts[String(visitor.id)]).toBe('online');
  });

  it('the pinger greets new connections, pings them, and drops the ones that are gone', async () => {
    const fresh = newId();
    const stale = newId();
    await connect(wsEvent('$connect', fresh));
    const old = Date.now() - 60_000;
    await putConnection({ connection_id: stale, connected_at: old, expires_at: old + 7_800_000, welcomed: true, subscriptions: [] });
    gone.add(stale);
    const stats = await runPinger({ sender: cableSender()!, runForMs: 400, pingIntervalMs: 100, discoverIntervalMs: 50 });
    const toFresh = framesTo(fresh);
    expect(toFresh[0]).toEqual({ type: 'welcome' });
    expect(toFresh.filter((f) => f.type === 'ping').length).toBeGreaterThanOrEqual(1);
    expect(toFresh.find((f) => f.type === 'ping').message).toBeTypeOf('number');
    expect((await getConnection(fresh))!.welcomed).toBe(true);
    expect(await getConnection(stale)).toBeUndefined();
    expect(stats.welcomes).toBeGreaterThanOrEqual(1);
    expect(stats.removed).toBeGreaterThanOrEqual(1);
  });
});
