import nodemailer from 'nodemailer';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as cableConnect } from '../../functions/cable/connect.ts';
import { handler as cableDefault } from '../../functions/cable/default.ts';
import { handler as cableDisconnect } from '../../functions/cable/disconnect.ts';
import { handler as cablePing } from '../../functions/cable/ping.ts';
import type { WebSocketEvent } from '#shared/realtime/websocket-event.ts';
import { CABLE_FUNCTION_NAMES } from '../../infra/cable.ts';
import { asFunction, startRecording, stopRecording, type Recording } from '../../infra/local/recorder.ts';
import { EVENT_FUNCTION_NAMES } from '../../infra/pipeline.ts';
import { functionName, methodsOf, routeKeyOf, routes } from '../../infra/routes.ts';
import { scenarios } from '../../bench/scenarios/index.ts';
import type { BenchWorld } from '../../bench/scenarios/types.ts';
import { ENV_NAMES } from '#shared/config-reads.ts';
import { startManagementApi } from '../support/cable.ts';
import { overrideEnv } from '../support/env.ts';
import { seedAccountVia } from '../support/http.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { client, runtime, unique } from '../support/runtime.ts';
import { until } from '../support/until.ts';
import { DEPLOYED_ENV, findings, synthesize, type LocalNames, type Synthesized } from './deploy-proof.ts';

// Deploy proof: every AWS call each function makes and every environment variable it reads, recorded
// while the local runtime serves a tour of the whole route table (each route once, by its bench
// scenario) and the event pipeline delivers a webhook, must be allowed by that function's role and set
// in its environment in the synthesized template. A missing permission or variable names the function
// and the call. The /cable functions (deployed behind API Gateway's WebSocket API; `npm start` serves
// /cable itself) run as themselves on a socket's whole life, against a stand-in of the management API on
// 127.0.0.1, and the dispatcher's broadcast stage sends that socket an agent's reply through it.

/** An API Gateway WebSocket event for one connection. */
const wsEvent = (routeKey: string, connectionId: string, extra: Partial<WebSocketEvent> = {}): WebSocketEvent =>
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
      identity: { sourceIp: '127.0.0.1' },
    } as never,
    isBase64Encoded: false,
    ...extra,
  }) as WebSocketEvent;

describe('deploy proof', () => {
  let synth: Synthesized;
  let recording: Recording;
  let local: LocalNames;
  let receiver: Receiver;
  const failed: string[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    // The template first: synthesis holds the event loop, and the runtime would stall meanwhile.
    let t = performance.now();
    synth = synthesize();
    process.stdout.write(`proof: synth ${Math.round(performance.now() - t)} ms\n`);
    t = performance.now();
    const rt = await runtime();
    local = {
      tableName: rt.tableName,
      queueUrls: { ...rt.queueUrls },
      bucket: process.env.AVATAR_BUCKET!,
    };
    // Only this file's tour counts (other files of the worker may have run before, with odd settings).
    recording = startRecording();
    recording.clear();
    // The reports scenarios seed a range of days; the proof needs their calls, not a year of data.
    process.env.BENCH_REPORT_DAYS ??= '2';
    process.env.BENCH_CSAT_RESPONSES ??= '5';
    process.env.BENCH_SLA_CONVERSATIONS ??= '3';

    const platform = client(rt.baseUrl, rt.platformToken);
    const seeded = await seedAccountVia(rt.baseUrl, platform, unique('proof-'));
    const world: BenchWorld = {
      baseUrl: rt.baseUrl,
      platform,
      account: { id: seeded.accountId, base: seeded.base, admin: seeded.admin, agent: seeded.agent },
      unique,
    };
    // The pipeline's whole way: a message to a webhook on a local receiver.
    receiver = await startReceiver();
    const admin = seeded.admin.api;
    const hook = await admin.post(`${seeded.base}/webhooks`, { url: receiver.url, subscriptions: ['message_created'] });
    if (hook.status !== 200) throw new Error(`webhook: ${hook.status} ${hook.text}`);

    for (const route of routes) {
      for (const method of methodsOf(route)) {
        const key = routeKeyOf(route, method);
        const sc = scenarios[key];
        if (!sc) {
          failed.push(`${key}: no bench scenario`);
          continue;
        }
        const started = performance.now();
        try {
          const state = sc.setup ? await sc.setup(world) : undefined;
          const prepared = sc.prepare ? await sc.prepare(world, state, 0) : undefined;
          const req = sc.request(world, state, prepared, 0);
          const res = await (req.client ?? admin).request(req.method, req.path, req.body, req.headers);
          if (res.status !== (req.status ?? 200)) failed.push(`${key}: ${res.status} ${res.text.slice(0, 200)}`);
        } catch (err) {
          failed.push(`${key}: ${(err as Error).message}`);
        }
        timings[key] = Math.round(performance.now() - started);
      }
    }
    const inbox = await admin.get(`${seeded.base}/inboxes`);
    const conv = await admin.get(`${seeded.base}/conversations?status=all`);
    const conversationId = conv.body?.data?.payload?.[0]?.id;
    if (!conversationId) throw new Error(`no conversation after the tour: ${inbox.status} ${conv.text.slice(0, 200)}`);
    const msg = await admin.post(`${seeded.base}/conversations/${conversationId}/messages`, { content: 'deploy proof' });
    if (msg.status !== 200) throw new Error(`message: ${msg.status} ${msg.text}`);
    await receiver.waitFor(1, 60_000);

    // The /cable functions: a visitor's socket connects, subscribes, updates its presence, hears an agent's
    // reply from the dispatcher, is pinged, and disconnects.
    const mgmt = await startManagementApi();
    const restoreEnv = overrideEnv({ CABLE_ENDPOINT: mgmt.url });
    try {
      const api = await admin.post(`${seeded.base}/inboxes`, { name: unique('proof-cable'), channel: { type: 'api' } });
      const pub = client(rt.baseUrl);
      const visitor = await pub.post(`/public/api/v1/inboxes/${api.body.inbox_identifier}/contacts`, { name: 'Proof visitor' });
      const visit = await pub.post(
        `/public/api/v1/inboxes/${api.body.inbox_identifier}/contacts/${visitor.body.source_id}/conversations`,
        {},
      );
      if (visit.status !== 200) throw new Error(`visitor conversation: ${visit.status} ${visit.text}`);
      const id = `${randomBytes(9).toString('base64')}=`;
      const identifier = JSON.stringify({ channel: 'RoomChannel', pubsub_token: visitor.body.pubsub_token });
      const asCable = <T>(fn: keyof typeof CABLE_FUNCTION_NAMES, f: () => Promise<T>) => asFunction(CABLE_FUNCTION_NAMES[fn], f);
      await asCable('connect', () =>
        cableConnect(wsEvent('$connect', id, { headers: { 'Sec-WebSocket-Protocol': 'actioncable-v1-json' } })),
      );
      await asCable('default', () => cableDefault(wsEvent('$default', id, { body: JSON.stringify({ command: 'subscribe', identifier }) })));
      await asCable('default', () =>
        cableDefault(
          wsEvent('$default', id, {
            body: JSON.stringify({ command: 'message', identifier, data: JSON.stringify({ action: 'update_presence' }) }),
          }),
        ),
      );
      if (!mgmt.posted.some((p) => p.connectionId === id && p.frame?.type === 'confirm_subscription'))
        throw new Error(`no subscription: ${JSON.stringify(mgmt.posted)}`);
      const reply = await admin.post(`${seeded.base}/conversations/${visit.body.id}/messages`, { content: 'proof reply' });
      if (reply.status !== 200) throw new Error(`reply: ${reply.status} ${reply.text}`);
      const heard = () =>
        mgmt.posted.some(
          (p) => p.connectionId === id && p.frame?.message?.event === 'message.created' && p.frame.message.data?.id === reply.body.id,
        );
      await until(heard, { what: 'the broadcast to reach the socket', timeoutMs: 60_000, everyMs: 25 });
      await asCable('ping', () => cablePing({}, { getRemainingTimeInMillis: () => 8_500 }));
      await asCable('disconnect', () => cableDisconnect(wsEvent('$disconnect', id)));
    } finally {
      restoreEnv();
      await mgmt.close();
    }
    // Incoming mail: one through the local SMTP listener (SES receiving's stand-in) and one IMAP poll.
    const mailbox = `${unique('proof')}@mail.proof.example`;
    const mailInbox = await admin.post(`${seeded.base}/inboxes`, {
      name: unique('proof-mail'),
      channel: { type: 'email', email: mailbox },
    });
    if (mailInbox.status !== 200) throw new Error(`email inbox: ${mailInbox.status} ${mailInbox.text}`);
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: rt.inboundSmtpPort, secure: false, ignoreTLS: true });
    await smtp.sendMail({
      envelope: { from: 'customer@proof.example', to: [mailbox] },
      raw: `From: customer@proof.example\r\nTo: ${mailbox}\r\nSubject: proof\r\nMessage-ID: <${unique('m')}@proof.example>\r\n\r\nproof\r\n`,
    });
    smtp.close();
    await rt.pollImap();
    process.stdout.write(`proof: tour ${Math.round(performance.now() - t)} ms\n`);
  }, 600_000);

  afterAll(async () => {
    stopRecording();
    await receiver?.close();
  });

  it('classifies every environment variable the configuration knows', () => {
    expect(Object.keys(DEPLOYED_ENV).sort()).toEqual([...ENV_NAMES].sort());
  });

  it('toured every route of the table', () => {
    expect(failed).toEqual([]);
    const names = new Set([...routes.map(functionName), ...Object.values(EVENT_FUNCTION_NAMES), ...Object.values(CABLE_FUNCTION_NAMES)]);
    const silent = [...names].filter((n) => !recording.has(n));
    // Every route's function ran, the pipeline's (the webhook arrived) and the socket's.
    expect(silent).toEqual([]);
  });

  it("allows every recorded call in the function's role and sets every variable it reads", async () => {
    const calls = [...recording.values()].reduce((n, r) => n + r.calls.size, 0);
    expect(calls).toBeGreaterThan(routes.length);
    if (process.env.PROOF_DUMP) {
      const dump = Object.fromEntries(
        [...recording].map(([fn, r]) => [fn, { calls: [...r.calls.keys()], variables: [...r.variables].sort() }]),
      );
      (await import('node:fs')).writeFileSync(process.env.PROOF_DUMP, JSON.stringify({ tourMs: timings, functions: dump }, null, 1));
    }
    expect(findings(recording, synth, local)).toEqual([]);
  });

  it('recorded the socket functions’ own calls: connections and subscriptions in the table, frames through the management API', () => {
    const commands = (fn: string) => [...(recording.get(fn)?.calls.values() ?? [])].map((c) => `${c.client}.${c.command}`);
    expect(commands(CABLE_FUNCTION_NAMES.connect)).toContain('DynamoDBClient.PutItemCommand');
    expect(commands(CABLE_FUNCTION_NAMES.default)).toContain('ApiGatewayManagementApiClient.PostToConnectionCommand');
    expect(commands(CABLE_FUNCTION_NAMES.ping)).toContain('ApiGatewayManagementApiClient.PostToConnectionCommand');
    expect(commands(CABLE_FUNCTION_NAMES.disconnect)).toContain('DynamoDBClient.DeleteItemCommand');
    expect(commands(EVENT_FUNCTION_NAMES.dispatch)).toContain('ApiGatewayManagementApiClient.PostToConnectionCommand');
    for (const fn of Object.values(CABLE_FUNCTION_NAMES)) expect(recording.get(fn)!.variables.has('TABLE_NAME'), fn).toBe(true);
  });

  it('names the cable function and the call when its role cannot post to connections', () => {
    const fn = CABLE_FUNCTION_NAMES.default;
    const broken: Synthesized = structuredClone(synth);
    const d = broken.functions.get(fn)!;
    d.statements = d.statements.map((s) => ({ ...s, actions: s.actions.filter((a) => a !== 'execute-api:ManageConnections') }));
    delete d.env.CABLE_ENDPOINT;
    const found = findings(new Map([[fn, recording.get(fn)!]]), broken, local);
    expect(found).toContain(`${fn}: reads CABLE_ENDPOINT, which its environment does not set`);
    expect(
      found.some(
        (f) => f.startsWith(`${fn}: ApiGatewayManagementApi.PostToConnection`) && f.includes('needs execute-api:ManageConnections'),
      ),
    ).toBe(true);
  });

  it('names the function and the call when a permission or a variable is missing', () => {
    const fn = functionName(routes.find((r) => r.handler === 'functions/api/labels/create.ts')!);
    const rec = recording.get(fn)!;
    expect([...rec.calls.values()].some((c) => c.command === 'PutItemCommand' || c.command === 'TransactWriteItemsCommand')).toBe(true);
    const deployed = synth.functions.get(fn)!;
    const broken: Synthesized = structuredClone(synth);
    const d = broken.functions.get(fn)!;
    d.statements = deployed.statements.map((s) => ({ ...s, actions: s.actions.filter((a) => !/^dynamodb:(PutItem|UpdateItem)$/.test(a)) }));
    delete d.env.TABLE_NAME;
    const found = findings(new Map([[fn, rec]]), broken, local);
    expect(found).toContain(`${fn}: reads TABLE_NAME, which its environment does not set`);
    expect(found.some((f) => f.startsWith(`${fn}: DynamoDB.`) && /needs dynamodb:(PutItem|UpdateItem) on arn\(/.test(f))).toBe(true);
  });
});
