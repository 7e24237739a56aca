import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { CABLE_SERVER } from '../../../infra/cable.ts';
import { testBundles } from '../../infra/bundles.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCableTask, type CableTask } from '../../../infra/cable-server/main.ts';
import { getConnection, listAccountSubscriptions } from '#shared/db/repositories/cable.ts';
import { cableSender } from '#shared/realtime/senders.ts';
import { sqs } from '#shared/queues/client.ts';
import { openConnection } from '#shared/realtime/connections.ts';
import { addSubscription } from '#shared/db/repositories/cable.ts';
import { taskOf, taskQueueName } from '#shared/realtime/task-queues.ts';
import { connectCable, type CableClient } from '../../support/cable.ts';
import { overrideEnv } from '../../support/env.ts';
import { client, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { untilState } from '../../support/until.ts';
import { newInbox, ok } from '../../e2e/conversations/fixtures.ts';

// The Fargate transport of /cable, in process: two socket-server tasks (infra/cable-server/main.ts) on
// loopback ports, each with its own queue on the SQS emulator; the dispatcher (CABLE_QUEUE_PREFIX set)
// sends each task the frames of its connections. A contact is on one task, an administrator on the other.

describe('/cable on Fargate tasks with a queue each', () => {
  let s: SeededAccount;
  let restoreEnv: () => void;
  let prefix: string;
  let a: CableTask;
  let b: CableTask;
  let inbox: { id: number; inbox_identifier: string };
  let visitor: { source_id: string; pubsub_token: string };
  let conversationId: number;
  let contact: CableClient;
  let admin: CableClient;
  const open: CableClient[] = [];

  const connect = async (task: CableTask, protocols?: string[]) => {
    const c = await connectCable(`http://127.0.0.1:${task.port}`, { protocols });
    open.push(c);
    await c.waitFor((f) => f.type === 'welcome');
    return c;
  };
  const confirmed = (c: CableClient, identifier: string) =>
    c
      .waitFor((f) => (f.type === 'confirm_subscription' || f.type === 'reject_subscription') && f.identifier === identifier)
      .then((f) => f.type);
  const reply = async (content: string) =>
    ok(await s.admin.api.post(`${s.base}/conversations/${conversationId}/messages`, { content }), 'reply') as { id: number };

  beforeAll(async () => {
    const baseUrl = (await runtime()).baseUrl;
    prefix = `${unique('t')}-`.replace(/[^\w-]/g, '');
    restoreEnv = overrideEnv({ CABLE_QUEUE_PREFIX: prefix });
    a = await startCableTask({ port: 0, host: '127.0.0.1', waitSeconds: 1 });
    b = await startCableTask({ port: 0, host: '127.0.0.1', waitSeconds: 1 });
    s = await seedAccount();
    inbox = (await newInbox(s)) as never;
    const pub = client(baseUrl);
    visitor = ok(await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts`, { name: unique('V ') }), 'contact');
    conversationId = ok(
      await pub.post(`/public/api/v1/inboxes/${inbox.inbox_identifier}/contacts/${visitor.source_id}/conversations`, {}),
      'conversation',
    ).id;
    const profile = ok(await s.admin.api.get('/api/v1/profile'), 'profile');

    contact = await connect(a, []);
    expect(await confirmed(contact, contact.subscribe({ pubsub_token: visitor.pubsub_token }))).toBe('confirm_subscription');
    admin = await connect(b);
    expect(
      await confirmed(admin, admin.subscribe({ pubsub_token: profile.pubsub_token, account_id: s.accountId, user_id: s.admin.id })),
    ).toBe('confirm_subscription');
  });
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
    await Promise.all([a?.stop(), b?.stop()]);
    restoreEnv?.();
  });

  it('answers health checks and names each connection by its task', async () => {
    const health = await fetch(`http://127.0.0.1:${a.port}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', connections: 1 });
    expect((await fetch(`http://127.0.0.1:${a.port}/other`)).status).toBe(404);
    const subs = await listAccountSubscriptions(s.accountId);
    expect(subs.map((x) => taskOf(x.connection_id)).sort()).toEqual([a.taskId, b.taskId].sort());
    expect(subs.find((x) => x.kind === 'contact')!.connection_id.startsWith(`${a.taskId}.`)).toBe(true);
    expect(subs.find((x) => x.kind === 'user')!.connection_id.startsWith(`${b.taskId}.`)).toBe(true);
    const url = await sqs().send(new GetQueueUrlCommand({ QueueName: taskQueueName(prefix, a.taskId) }));
    expect(url.QueueUrl).toBe(a.queueUrl);
  });

  it("delivers an agent's reply to the contact on one task and the administrator on the other through their queues", async () => {
    const m = await reply('from the agent');
    const toContact = await contact.waitForEvent('message.created', (d) => d.id === m.id);
    expect(toContact).toMatchObject({ id: m.id, content: 'from the agent', conversation_id: expect.any(Number), account_id: s.accountId });
    const toAdmin = await admin.waitForEvent('message.created', (d) => d.id === m.id);
    expect(toAdmin).toMatchObject({ id: m.id, content: 'from the agent', account_id: s.accountId });
  });

  it("a stopped task's queue is gone: sends to its connections answer gone and their records are removed", async () => {
    const adminConnection = (await listAccountSubscriptions(s.accountId)).find((x) => x.kind === 'user')!.connection_id;
    await b.stop();
    await admin.closed;
    await expect(sqs().send(new GetQueueUrlCommand({ QueueName: taskQueueName(prefix, b.taskId) }))).rejects.toThrow();
    // The stopped task's own connection records went with its sockets.
    await untilState(
      () => getConnection(adminConnection),
      (c) => c === undefined,
    );
    // One that a task killed outright left behind: the dispatcher finds no queue and removes it.
    const orphan = `${b.taskId}.orphan${Date.now()}`;
    await openConnection(orphan, { welcomed: true });
    const userSub = {
      connection_id: orphan,
      identifier: '{"channel":"RoomChannel"}',
      identifier_hash: 'h',
      account_id: s.accountId,
      kind: 'user' as const,
      user_id: s.admin.id,
      role: 'administrator' as const,
      contact_id: null,
      pubsub_token: null,
      hmac_verified: false,
      created_at: Date.now(),
    };
    await addSubscription(userSub, 10, Date.now() + 3600_000);
    expect(await getConnection(orphan)).toMatchObject({ connection_id: orphan });
    const m = await reply('after the task stopped');
    // The contact on the running task still hears it.
    expect(await contact.waitForEvent('message.created', (d) => d.id === m.id)).toMatchObject({ id: m.id });
    await untilState(
      () => getConnection(orphan),
      (c) => c === undefined,
    );
    expect((await listAccountSubscriptions(s.accountId)).map((x) => x.connection_id)).not.toContain(orphan);
    // Straight through the sender: gone for the stopped task, sent for the running one.
    const sender = cableSender()!;
    expect(await sender.send(`${b.taskId}.x`, { type: 'ping', message: 1 })).toBe(false);
    const contactConnection = (await listAccountSubscriptions(s.accountId)).find((x) => x.kind === 'contact')!.connection_id;
    expect(await sender.send(contactConnection, { type: 'ping', message: 42 })).toBe(true);
    await contact.waitFor((f) => f.type === 'ping' && f.message === 42);
  });

  it('runs as the bundled process the image starts: health answers, its queue exists, SIGTERM deletes it and exits 0', async () => {
    const dir = testBundles()[CABLE_SERVER.name].dir;
    const child = spawn(process.execPath, [join(dir, 'index.mjs')], {
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'INFO', CABLE_QUEUE_PREFIX: prefix },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let output = '';
    const started = new Promise<{ taskId: string; port: number }>((resolve, reject) => {
      const onData = (d: Buffer) => {
        output += String(d);
        const line = output.split('\n').find((l) => l.includes('cable task started'));
        if (line) resolve(JSON.parse(line));
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`exited ${code}: ${output}`)));
    });
    try {
      const { taskId, port } = await started;
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', connections: 0 });
      const url = await sqs().send(new GetQueueUrlCommand({ QueueName: taskQueueName(prefix, taskId) }));
      expect(url.QueueUrl).toContain(`${prefix}cable-${taskId}`);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await expect(sqs().send(new GetQueueUrlCommand({ QueueName: taskQueueName(prefix, taskId) }))).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 300_000);
});
