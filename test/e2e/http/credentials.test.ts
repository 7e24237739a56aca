import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newToken, ownerToken, tokenOwnerHint } from '#shared/crypto/tokens.ts';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { tokenItem } from '#shared/db/repositories/identity.ts';
import { client, expectErrorBody, runtime, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { sessionClient, sessionHeadersOf } from '../sessions/fixtures.ts';
import { callRecorder } from '../../support/calls.ts';

// Credential lookups in round trips, read from the SDK client the handlers share (same process as the
// local runtime): a token the container has not seen costs one BatchGet (token, account and its owner's
// items together) when it names its owner, as every token made now does; a recent one costs none; an
// older token without an owner hint two; a hint is never trusted over the token's own record.

/** The calls of a request naming any of these keys. */
const naming = <C extends { input: string }>(calls: C[], ...marks: string[]) => calls.filter((c) => marks.some((m) => c.input.includes(m)));
const key = (k: { pk: string; sk?: string }) => JSON.stringify(k).slice(1, -1);
const token = (hash: string) => key(keys.token(hash));
const membership = (accountId: number, userId: number) => key(keys.accountUser(accountId, userId));
const user = (id: number) => key(keys.user(id));

describe('credential lookups', () => {
  let s: SeededAccount;
  let base: string;
  let recorder: ReturnType<typeof callRecorder>;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    recorder = callRecorder('credentialsTestRecorder');
  });

  it('tokens name their owner in the usual 32 characters', () => {
    expect(s.admin.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(tokenOwnerHint(s.admin.token)).toEqual({ owner_type: 'user', owner_id: s.admin.id });
    expect(tokenOwnerHint(s.agent.token)).toEqual({ owner_type: 'user', owner_id: s.agent.id });
  });

  it('an unseen token costs one round trip with its account and owner, a recent one none', async () => {
    const hash = hashToken(s.admin.token);
    recorder.take();
    const res = await s.admin.api.get(`${s.base}/labels`);
    expect(res.status).toBe(200);
    const reads = naming(recorder.take(), token(hash), membership(s.accountId, s.admin.id), user(s.admin.id));
    expect(reads).toHaveLength(1);
    expect(reads[0]!.command).toBe('BatchGetItemCommand');
    for (const k of [token(hash), key(keys.account(s.accountId)), membership(s.accountId, s.admin.id), user(s.admin.id)])
      expect(reads[0]!.input).toContain(k);

    expect((await s.admin.api.get(`${s.base}/labels`)).status).toBe(200);
    expect(naming(recorder.take(), token(hash), membership(s.accountId, s.admin.id))).toHaveLength(0);
  });

  it('the profile: one round trip for the token and its user', async () => {
    const hash = hashToken(s.agent.token);
    recorder.take();
    const res = await s.agent.api.get('/api/v1/profile');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(s.agent.id);
    // The token's one read carries the user (the profile's own reads come after it).
    const reads = naming(recorder.take(), token(hash));
    expect(reads).toHaveLength(1);
    expect(reads[0]!.input).toContain(user(s.agent.id));
  });

  it('an agent bot token: the token, the account, the bot and its link in one round trip', async () => {
    const bot = await s.admin.api.post(`${s.base}/agent_bots`, { name: 'Counted' });
    expect(bot.status).toBe(200);
    const botToken = bot.body.access_token as string;
    expect(tokenOwnerHint(botToken)).toEqual({ owner_type: 'agent_bot', owner_id: bot.body.id });
    recorder.take();
    // Labels are not on the bots' allow-list: 403 once the bot is known, from the one read.
    expectErrorBody(await client(base, botToken).get(`${s.base}/labels`), 403);
    const reads = naming(recorder.take(), token(hashToken(botToken)));
    expect(reads).toHaveLength(1);
    for (const k of [key(keys.account(s.accountId)), key(keys.agentBot(bot.body.id))]) expect(reads[0]!.input).toContain(k);
  });

  it('a session (read on every request, so a sign-out is immediate) costs one round trip', async () => {
    const email = (await s.agent.api.get('/api/v1/profile')).body.email as string;
    const headers = sessionHeadersOf(await client(base).post('/auth/sign_in', { email, password: 'Passw0rd!' }));
    expect(tokenOwnerHint(headers['access-token'])).toEqual({ owner_type: 'user', owner_id: s.agent.id });
    const agent = sessionClient(base, headers);
    for (const path of [`${s.base}/labels`, '/api/v1/profile']) {
      recorder.take();
      const res = await agent.get(path);
      expect(res.status).toBe(200);
      const calls = recorder.take();
      const reads = naming(calls, key(keys.session(hashToken(headers['access-token']))));
      expect(reads).toHaveLength(1);
      expect(reads[0]!.input).toContain(user(s.agent.id));
      if (path !== '/api/v1/profile') expect(naming(calls, membership(s.accountId, s.agent.id))).toEqual(reads);
    }
  });

  it('an older token without an owner hint still works, in two round trips', async () => {
    const legacy = newToken();
    // (One in 128 random tokens starts with a marker byte: that token carries a wrong hint, which the
    // last test shows is harmless; this test wants one without.)
    const legacy2 = tokenOwnerHint(legacy) ? `A${legacy.slice(1)}` : legacy;
    expect(tokenOwnerHint(legacy2)).toBeUndefined();
    await db().send(
      new PutCommand({ TableName: tableName(), Item: tokenItem(hashToken(legacy2), { owner_type: 'user', owner_id: s.admin.id }) }),
    );
    recorder.take();
    const res = await client(base, legacy2).get(`${s.base}/labels`);
    expect(res.status).toBe(200);
    const calls = recorder.take();
    const [first] = naming(calls, token(hashToken(legacy2)));
    const [second] = naming(calls, membership(s.accountId, s.admin.id));
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(first).not.toBe(second);
  });

  it('trusts the token record over its hint, and refuses an unknown hinted token in one round trip', async () => {
    // A token that names the agent but whose record belongs to the administrator acts as the administrator.
    const misleading = ownerToken('user', s.agent.id);
    await db().send(
      new PutCommand({ TableName: tableName(), Item: tokenItem(hashToken(misleading), { owner_type: 'user', owner_id: s.admin.id }) }),
    );
    const admins = await client(base, misleading).get(`${s.base}/agents`);
    expect(admins.status).toBe(200);
    const profile = await client(base, misleading).get('/api/v1/profile');
    expect(profile.body.id).toBe(s.admin.id);

    const unknown = ownerToken('user', s.admin.id);
    recorder.take();
    expectErrorBody(await client(base, unknown).get(`${s.base}/labels`), 401);
    expect(naming(recorder.take(), token(hashToken(unknown)))).toHaveLength(1);
  });
});
