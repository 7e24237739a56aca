import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, unique, type SeededAccount, fieldsOf } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';

describe('account labels (Chatwoot label CRUD)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
  });

  it('creates, lists (sorted by title), shows, updates and deletes labels', async () => {
    const created = await s.admin.api.post(`${s.base}/labels`, {
      title: 'VIP-Customer',
      description: 'pays well',
      color: '#FF0000',
      show_on_sidebar: true,
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      title: 'vip-customer',
      description: 'pays well',
      color: '#FF0000',
      show_on_sidebar: true,
    });
    // Rails root key and defaults.
    const plain = await s.admin.api.post(`${s.base}/labels`, { label: { title: 'billing' } });
    expect(plain.body).toEqual({ id: expect.any(Number), title: 'billing', description: null, color: '#1f93ff', show_on_sidebar: false });

    const list = await s.agent.api.get(`${s.base}/labels`);
    expect(list.status).toBe(200);
    expect(list.body.payload.map((l: { title: string }) => l.title)).toEqual(['billing', 'vip-customer']);

    const shown = await s.agent.api.get(`${s.base}/labels/${created.body.id}`);
    expect(shown.body).toEqual(created.body);

    const updated = await s.admin.api.patch(`${s.base}/labels/${created.body.id}`, {
      title: 'VIP',
      show_on_sidebar: 'false',
      description: null,
    });
    expect(updated.body).toEqual({ ...created.body, title: 'vip', show_on_sidebar: false, description: null });
    const put = await s.admin.api.put(`${s.base}/labels/${created.body.id}`, { color: '#00ff00' });
    expect(put.body.color).toBe('#00ff00');

    // The old title is free again, the new one is taken.
    expect((await s.admin.api.post(`${s.base}/labels`, { title: 'vip-customer' })).status).toBe(200);
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/labels`, { title: 'Vip' }), 422))).toEqual({ title: 'taken' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/labels/${plain.body.id}`, { title: 'VIP' }), 422))).toEqual({
      title: 'taken',
    });

    const gone = await s.admin.api.delete(`${s.base}/labels/${created.body.id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expectErrorBody(await s.admin.api.get(`${s.base}/labels/${created.body.id}`), 404);
    expectErrorBody(await s.admin.api.delete(`${s.base}/labels/${created.body.id}`), 404);
    // Deleting frees the title.
    expect((await s.admin.api.post(`${s.base}/labels`, { title: 'vip' })).status).toBe(200);

    const changes = await streamChanges((c) => c.type === 'label' && c.newImage?.id === created.body.id);
    expect(changes.map((c) => c.action)).toEqual(['INSERT', 'MODIFY', 'MODIFY']);
  });

  it('validates title and colour, naming the fields', async () => {
    const res = expectErrorBody(
      await s.admin.api.post(`${s.base}/labels`, { title: 'has space', color: 'red', show_on_sidebar: 'maybe' }),
      422,
    );
    expect(fieldsOf(res)).toEqual({ title: 'invalid', color: 'invalid', show_on_sidebar: 'invalid' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/labels`, {}), 422))).toEqual({ title: 'required' });
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/labels`, { title: 'x'.repeat(256) }), 422))).toEqual({
      title: 'too_long',
    });
  });

  it('lets agents read but not write, and hides other accounts', async () => {
    const label = (await s.admin.api.post(`${s.base}/labels`, { title: unique('l') })).body;
    for (const res of [
      await s.agent.api.post(`${s.base}/labels`, { title: 'agent' }),
      await s.agent.api.patch(`${s.base}/labels/${label.id}`, { color: '#000000' }),
      await s.agent.api.delete(`${s.base}/labels/${label.id}`),
    ]) {
      expect(expectErrorBody(res, 403).errors[0].code).toBe('forbidden');
    }
    for (const res of [
      await other.admin.api.get(`${other.base}/labels/${label.id}`),
      await other.admin.api.patch(`${other.base}/labels/${label.id}`, { color: '#000000' }),
      await other.admin.api.delete(`${other.base}/labels/${label.id}`),
      await other.admin.api.get(`${s.base}/labels`),
      await other.admin.api.post(`${s.base}/labels`, { title: 'intruder' }),
      await other.admin.api.get(`${s.base}/labels/${label.id}`),
    ]) {
      expectErrorBody(res, 404);
    }
    expect((await other.admin.api.get(`${other.base}/labels`)).body.payload).toEqual([]);
    expectErrorBody(await client((await runtime()).baseUrl).get(`${s.base}/labels`), 401);
  });
});
