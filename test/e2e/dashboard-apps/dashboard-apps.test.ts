import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, type SeededAccount, fieldsOf } from '../../support/runtime.ts';

describe('dashboard apps', { timeout: 120_000 }, () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
  });

  it('administrators create, update and delete; everyone in the account lists and shows', async () => {
    const created = await s.admin.api.post(`${s.base}/dashboard_apps`, {
      dashboard_app: { title: 'CRM', content: [{ type: 'frame', url: 'https://crm.example.com/embed' }] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      title: 'CRM',
      content: [{ type: 'frame', url: 'https://crm.example.com/embed' }],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const id = created.body.id;
    expect((await s.agent.api.get(`${s.base}/dashboard_apps`)).body).toEqual([created.body]);
    expect((await s.agent.api.get(`${s.base}/dashboard_apps/${id}`)).body).toEqual(created.body);

    const updated = await s.admin.api.patch(`${s.base}/dashboard_apps/${id}`, { dashboard_app: { title: 'CRM v2' } });
    expect(updated.body).toMatchObject({ id, title: 'CRM v2', content: created.body.content });
    expect(
      (await s.admin.api.put(`${s.base}/dashboard_apps/${id}`, { content: [{ type: 'frame', url: 'https://b.example.com' }] })).body
        .content,
    ).toEqual([{ type: 'frame', url: 'https://b.example.com' }]);

    expectErrorBody(
      await s.agent.api.post(`${s.base}/dashboard_apps`, { title: 'x', content: [{ type: 'frame', url: 'https://x.example' }] }),
      403,
    );
    expectErrorBody(await s.agent.api.patch(`${s.base}/dashboard_apps/${id}`, { title: 'x' }), 403);
    expectErrorBody(await s.agent.api.delete(`${s.base}/dashboard_apps/${id}`), 403);
    expectErrorBody(await other.admin.api.get(`${other.base}/dashboard_apps/${id}`), 404);
    expectErrorBody(await other.admin.api.delete(`${other.base}/dashboard_apps/${id}`), 404);
    expect((await other.admin.api.get(`${other.base}/dashboard_apps`)).body).toEqual([]);

    const gone = await s.admin.api.delete(`${s.base}/dashboard_apps/${id}`);
    expect(gone.status).toBe(204);
    expectErrorBody(await s.agent.api.get(`${s.base}/dashboard_apps/${id}`), 404);
  });

  it('validates the title and the frames', async () => {
    const bad = expectErrorBody(
      await s.admin.api.post(`${s.base}/dashboard_apps`, { title: '', content: [{ type: 'script', url: 'javascript:alert(1)' }] }),
      422,
    );
    expect(Object.keys(fieldsOf(bad))).toEqual(expect.arrayContaining(['title', 'content[0].type', 'content[0].url']));
    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/dashboard_apps`, { title: 'x', content: [] }), 422))).toHaveProperty(
      'content',
    );
  });
});
