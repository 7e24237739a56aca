import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';

const SPEC_EVENTS = [
  'conversation_created',
  'conversation_status_changed',
  'conversation_updated',
  'message_created',
  'message_updated',
  'contact_created',
  'contact_updated',
  'webwidget_triggered',
];

/** docs/contract.md#webhook, with the types the contract names, and the signing secret. */
function expectWebhook(body: any, expected: { url: string; name: string | null; subscriptions: string[]; account_id: number }) {
  expect(body).toEqual({ id: expect.any(Number), secret: expect.any(String), ...expected });
  expect(Number.isInteger(body.id)).toBe(true);
  expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  for (const s of body.subscriptions) expect(typeof s).toBe('string');
}

describe('webhooks (contract endpoints 8 and 9)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  const url = () => `https://hooks.example.com/${unique('h')}`;
  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
  });

  it('creates a webhook (endpoint 8) and answers the bare record with a signing secret', async () => {
    const u = url();
    const res = await s.admin.api.post(`${s.base}/webhooks`, {
      url: u,
      name: 'CRM',
      subscriptions: ['message_created', 'conversation_created', 'message_created'],
    });
    expect(res.status).toBe(200);
    expectWebhook(res.body, { url: u, name: 'CRM', subscriptions: ['message_created', 'conversation_created'], account_id: s.accountId });

    // Defaults: the eight spec events, no name; each webhook has its own secret.
    const u2 = url();
    const plain = await s.admin.api.post(`${s.base}/webhooks`, { webhook: { url: u2 } });
    expectWebhook(plain.body, { url: u2, name: null, subscriptions: SPEC_EVENTS, account_id: s.accountId });
    expect(plain.body.secret).not.toBe(res.body.secret);

    // Every event Chatwoot accepts, and a form-encoded body with the Rails root key.
    const extra = ['conversation_typing_on', 'conversation_typing_off', 'inbox_created', 'inbox_updated'];
    const u3 = url();
    const form = await s.admin.api.request(
      'POST',
      `${s.base}/webhooks`,
      [`webhook[url]=${encodeURIComponent(u3)}`, ...extra.map((e) => `webhook[subscriptions][]=${e}`)].join('&'),
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(form.status).toBe(200);
    expect(form.body.subscriptions).toEqual(extra);

    const list = await s.admin.api.get(`${s.base}/webhooks`);
    expect(list.status).toBe(200);
    expect(list.body.payload.webhooks).toEqual(expect.arrayContaining([res.body, plain.body, form.body]));

    const [change] = await streamChanges((c) => c.type === 'webhook' && c.action === 'INSERT' && c.newImage?.id === res.body.id);
    expect(change.newImage).toMatchObject({ url: u, account_id: s.accountId, subscriptions: ['message_created', 'conversation_created'] });
  });

  it('updates any subset of url, name and subscriptions (endpoint 9)', async () => {
    const created = (await s.admin.api.post(`${s.base}/webhooks`, { url: url(), name: 'Old' })).body;
    const renamed = await s.admin.api.patch(`${s.base}/webhooks/${created.id}`, { name: 'New' });
    expect(renamed.status).toBe(200);
    expectWebhook(renamed.body, { url: created.url, name: 'New', subscriptions: SPEC_EVENTS, account_id: s.accountId });
    expect(renamed.body).toMatchObject({ id: created.id, secret: created.secret });

    const subs = await s.admin.api.patch(`${s.base}/webhooks/${created.id}`, { webhook: { subscriptions: ['contact_created'] } });
    expect(subs.body).toMatchObject({ name: 'New', subscriptions: ['contact_created'], url: created.url });

    const moved = url();
    const put = await s.admin.api.put(`${s.base}/webhooks/${created.id}`, { url: moved, name: null });
    expectWebhook(put.body, { url: moved, name: null, subscriptions: ['contact_created'], account_id: s.accountId });

    // The old URL is free again, the new one is taken.
    expect((await s.admin.api.post(`${s.base}/webhooks`, { url: created.url })).status).toBe(200);
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/webhooks`, { url: moved }), 422))).toEqual({ url: 'taken' });

    const empty = await s.admin.api.patch(`${s.base}/webhooks/${created.id}`, {});
    expect(empty.body).toEqual(put.body);
  });

  it('keeps urls unique per account, ignoring scheme/host case and default ports', async () => {
    const path = unique('/u');
    const first = await s.admin.api.post(`${s.base}/webhooks`, { url: `https://Hooks.Example.com${path}` });
    expect(first.status).toBe(200);
    for (const dup of [`https://hooks.example.com${path}`, `HTTPS://hooks.example.com:443${path}`]) {
      const res = expectErrorBody(await s.admin.api.post(`${s.base}/webhooks`, { url: dup }), 422);
      expect(res.errors).toEqual([{ field: 'url', message: expect.any(String), code: 'taken' }]);
    }
    const second = (await s.admin.api.post(`${s.base}/webhooks`, { url: url() })).body;
    expect(fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/webhooks/${second.id}`, { url: first.body.url }), 422))).toEqual({
      url: 'taken',
    });
    // Another account may use the same URL.
    expect((await other.admin.api.post(`${other.base}/webhooks`, { url: first.body.url })).status).toBe(200);
    // Deleting frees it.
    expect((await s.admin.api.delete(`${s.base}/webhooks/${first.body.id}`)).status).toBe(200);
    expect((await s.admin.api.post(`${s.base}/webhooks`, { url: `https://hooks.example.com${path}` })).status).toBe(200);
  });

  it('validates url and subscriptions with 422 naming the field', async () => {
    const bad = expectErrorBody(
      await s.admin.api.post(`${s.base}/webhooks`, { url: 'javascript:alert(1)', name: [7], subscriptions: ['message_created', 'nope'] }),
      422,
    );
    expect(fieldsOf(bad)).toEqual({ url: 'invalid', name: 'invalid', subscriptions: 'invalid' });
    // A number where text is taken is its text, as Rails casts it for a string column.
    const numbered = await s.admin.api.post(`${s.base}/webhooks`, { url: `https://hooks.example.com/${Date.now()}-named`, name: 7 });
    expect(numbered.status).toBe(200);
    expect((numbered.body.payload?.webhook ?? numbered.body).name).toBe('7');
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/webhooks`, {}), 422))).toEqual({ url: 'required' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/webhooks`, { url: url(), subscriptions: [] }), 422))).toEqual({
      subscriptions: 'required',
    });
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/webhooks`, { url: url(), subscriptions: 'message_created' }), 422)),
    ).toEqual({ subscriptions: 'invalid' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/webhooks`, { url: 'ftp://x.example.com/a' }), 422))).toEqual({
      url: 'invalid',
    });
    const w = (await s.admin.api.post(`${s.base}/webhooks`, { url: url() })).body;
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/webhooks/${w.id}`, { url: 'not a url', subscriptions: [] }), 422)),
    ).toEqual({
      url: 'invalid',
      subscriptions: 'required',
    });
  });

  it("stores and shows an inbox of the account (inbox_id), refusing others' inboxes", async () => {
    const inbox = (await s.admin.api.post(`${s.base}/inboxes`, { name: 'Support API', channel: { type: 'api' } })).body;
    const theirs = (await other.admin.api.post(`${other.base}/inboxes`, { name: 'Theirs', channel: { type: 'api' } })).body;
    const created = await s.admin.api.post(`${s.base}/webhooks`, { url: url(), inbox_id: String(inbox.id) });
    expect(created.status).toBe(200);
    expect(created.body.inbox).toEqual({ id: inbox.id, name: 'Support API' });
    const listed = (await s.admin.api.get(`${s.base}/webhooks`)).body.payload.webhooks.find(
      (w: { id: number }) => w.id === created.body.id,
    );
    expect(listed).toEqual(created.body);
    expect((await s.admin.api.patch(`${s.base}/webhooks/${created.body.id}`, { name: 'n' })).body.inbox).toEqual(created.body.inbox);

    for (const res of [
      await s.admin.api.post(`${s.base}/webhooks`, { url: url(), inbox_id: theirs.id }),
      await s.admin.api.patch(`${s.base}/webhooks/${created.body.id}`, { inbox_id: theirs.id }),
    ]) {
      expect(fieldsOf(expectErrorBody(res, 422))).toEqual({ inbox_id: 'not_found' });
    }
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/webhooks`, { url: url(), inbox_id: 'first' }), 422))).toEqual({
      inbox_id: 'invalid',
    });

    const cleared = await s.admin.api.patch(`${s.base}/webhooks/${created.body.id}`, { inbox_id: null });
    expect(cleared.body).not.toHaveProperty('inbox');
  });

  it("is for administrators only, and hides other accounts' webhooks", async () => {
    const w = (await s.admin.api.post(`${s.base}/webhooks`, { url: url() })).body;
    for (const res of [
      await s.agent.api.get(`${s.base}/webhooks`),
      await s.agent.api.post(`${s.base}/webhooks`, { url: url() }),
      await s.agent.api.patch(`${s.base}/webhooks/${w.id}`, { name: 'x' }),
      await s.agent.api.delete(`${s.base}/webhooks/${w.id}`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
    for (const res of [
      await other.admin.api.patch(`${other.base}/webhooks/${w.id}`, { name: 'x' }),
      await other.admin.api.delete(`${other.base}/webhooks/${w.id}`),
      await other.admin.api.get(`${s.base}/webhooks`),
      await other.admin.api.post(`${s.base}/webhooks`, { url: url() }),
      await other.admin.api.patch(`${s.base}/webhooks/${w.id}`, { name: 'x' }),
      await s.admin.api.patch(`${s.base}/webhooks/999999999`, { name: 'x' }),
    ]) {
      expectErrorBody(res, 404);
    }
    expect(JSON.stringify((await other.admin.api.get(`${other.base}/webhooks`)).body)).not.toContain(w.secret);
    // Chatwoot has no show route.
    expectErrorBody(await s.admin.api.get(`${s.base}/webhooks/${w.id}`), 404);
    const anon = client((await runtime()).baseUrl);
    expectErrorBody(await anon.post(`${s.base}/webhooks`, { url: url() }), 401);
    expectErrorBody(await anon.patch(`${s.base}/webhooks/${w.id}`, { name: 'x' }), 401);

    const gone = await s.admin.api.delete(`${s.base}/webhooks/${w.id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expect((await s.admin.api.get(`${s.base}/webhooks`)).body.payload.webhooks.map((x: { id: number }) => x.id)).not.toContain(w.id);
    expectErrorBody(await s.admin.api.delete(`${s.base}/webhooks/${w.id}`), 404);
  });
});
