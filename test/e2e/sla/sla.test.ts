import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, fieldsOf, seedAccount, type SeededAccount } from '../../support/runtime.ts';

describe('SLA policies (Chatwoot SlaPoliciesController)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
  });

  it('administrators create, update and delete policies; agents list and show them', async () => {
    const created = await s.admin.api.post(`${s.base}/sla_policies`, {
      sla_policy: {
        name: 'Gold',
        description: 'paying customers',
        first_response_time_threshold: 60,
        next_response_time_threshold: '120.5',
        resolution_time_threshold: 3600,
        only_during_business_hours: true,
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      payload: {
        id: expect.any(Number),
        name: 'Gold',
        description: 'paying customers',
        first_response_time_threshold: 60,
        next_response_time_threshold: 120.5,
        only_during_business_hours: true,
        resolution_time_threshold: 3600,
      },
    });
    const id = created.body.payload.id;
    // Defaults: no thresholds, not business hours only.
    const plain = await s.admin.api.post(`${s.base}/sla_policies`, { name: 'Plain' });
    expect(plain.body.payload).toEqual({
      id: expect.any(Number),
      name: 'Plain',
      description: null,
      first_response_time_threshold: null,
      next_response_time_threshold: null,
      only_during_business_hours: false,
      resolution_time_threshold: null,
    });

    const list = await s.agent.api.get(`${s.base}/sla_policies`);
    expect(list.status).toBe(200);
    expect(list.body.payload.map((p: { name: string }) => p.name)).toEqual(['Gold', 'Plain']);
    expect((await s.agent.api.get(`${s.base}/sla_policies/${id}`)).body).toEqual(created.body);

    const updated = await s.admin.api.patch(`${s.base}/sla_policies/${id}`, { name: 'Platinum', next_response_time_threshold: null });
    expect(updated.status).toBe(200);
    expect(updated.body.payload).toEqual({ ...created.body.payload, name: 'Platinum', next_response_time_threshold: null });
    const put = await s.admin.api.put(`${s.base}/sla_policies/${id}`, { only_during_business_hours: 'false' });
    expect(put.body.payload.only_during_business_hours).toBe(false);
    expect(put.body.payload.name).toBe('Platinum');

    // Another account does not see it.
    expectErrorBody(await other.admin.api.get(`${other.base}/sla_policies/${id}`), 404);
    expect((await other.admin.api.get(`${other.base}/sla_policies`)).body).toEqual({ payload: [] });

    const gone = await s.admin.api.delete(`${s.base}/sla_policies/${id}`);
    expect(gone.status).toBe(200);
    expect(gone.text).toBe('');
    expectErrorBody(await s.admin.api.get(`${s.base}/sla_policies/${id}`), 404);
    expectErrorBody(await s.admin.api.delete(`${s.base}/sla_policies/${id}`), 404);
  });

  it('agents may not write policies; bad input is a 422 and writes nothing', async () => {
    const p = await s.admin.api.post(`${s.base}/sla_policies`, { name: 'Silver', first_response_time_threshold: 10 });
    const id = p.body.payload.id;
    expect(expectErrorBody(await s.agent.api.post(`${s.base}/sla_policies`, { name: 'Mine' }), 403).errors[0].code).toBe('forbidden');
    expectErrorBody(await s.agent.api.patch(`${s.base}/sla_policies/${id}`, { name: 'Mine' }), 403);
    expectErrorBody(await s.agent.api.delete(`${s.base}/sla_policies/${id}`), 403);

    expect(fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/sla_policies`, { description: 'no name' }), 422))).toHaveProperty(
      'name',
    );
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.post(`${s.base}/sla_policies`, { name: 'x', first_response_time_threshold: -1 }), 422)),
    ).toHaveProperty('first_response_time_threshold');
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/sla_policies/${id}`, { resolution_time_threshold: 'soon' }), 422)),
    ).toHaveProperty('resolution_time_threshold');
    expectErrorBody(await s.admin.api.get(`${s.base}/sla_policies/abc`), 404);
    const names = (await s.admin.api.get(`${s.base}/sla_policies`)).body.payload.map((x: { name: string }) => x.name);
    expect(names).not.toContain('Mine');
    expect(names).not.toContain('x');
    expect((await s.admin.api.get(`${s.base}/sla_policies/${id}`)).body.payload.name).toBe('Silver');
  });
});
