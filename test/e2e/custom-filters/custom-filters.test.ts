import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { client, expectErrorBody, runtime, seedAccount, type SeededAccount, fieldsOf } from '../../support/runtime.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const query = { payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'], query_operator: null }] };

describe('custom filters (contract endpoint 6)', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    s = await seedAccount();
    other = await seedAccount();
  });

  it("creates, lists by filter_type, shows, updates and deletes a user's filters", async () => {
    const created = await s.agent.api.post(`${s.base}/custom_filters`, {
      custom_filter: { name: 'Open ones', filter_type: 'conversation', query },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Open ones',
      filter_type: 'conversation',
      query,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    // Top-level JSON fields work too; filter_type defaults to conversation and query to {}.
    const bare = await s.agent.api.post(`${s.base}/custom_filters`, { name: 'Everything' });
    expect(bare.body).toMatchObject({ name: 'Everything', filter_type: 'conversation', query: {} });
    const contacts = await s.agent.api.post(`${s.base}/custom_filters`, {
      name: 'Leads',
      filter_type: 'contact',
      query: JSON.stringify({ payload: [] }),
    });
    expect(contacts.body).toMatchObject({ filter_type: 'contact', query: { payload: [] } });

    const conv = await s.agent.api.get(`${s.base}/custom_filters`);
    expect(conv.status).toBe(200);
    expect(conv.body).toEqual([created.body, bare.body]);
    expect((await s.agent.api.get(`${s.base}/custom_filters?filter_type=contact`)).body).toEqual([contacts.body]);
    expect((await s.agent.api.get(`${s.base}/custom_filters?filter_type=report`)).body).toEqual([]);

    expect((await s.agent.api.get(`${s.base}/custom_filters/${created.body.id}`)).body).toEqual(created.body);

    const moved = await s.agent.api.patch(`${s.base}/custom_filters/${bare.body.id}`, {
      custom_filter: { name: 'Reports', filter_type: 'report' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: bare.body.id,
      name: 'Reports',
      filter_type: 'report',
      query: {},
      created_at: bare.body.created_at,
    });
    expect(moved.body.updated_at >= bare.body.updated_at).toBe(true);
    expect((await s.agent.api.get(`${s.base}/custom_filters?filter_type=report`)).body).toEqual([moved.body]);
    expect((await s.agent.api.get(`${s.base}/custom_filters`)).body).toEqual([created.body]);
    const put = await s.agent.api.put(`${s.base}/custom_filters/${bare.body.id}`, { query });
    expect(put.body).toMatchObject({ name: 'Reports', query });

    const gone = await s.agent.api.delete(`${s.base}/custom_filters/${created.body.id}`);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    expectErrorBody(await s.agent.api.get(`${s.base}/custom_filters/${created.body.id}`), 404);
    expect((await s.agent.api.get(`${s.base}/custom_filters`)).body).toEqual([]);
  });

  it('keeps filters private to their creator: other users and accounts get 404 (endpoint 6 errors)', async () => {
    const mine = (await s.admin.api.post(`${s.base}/custom_filters`, { name: 'Admin view' })).body;
    for (const res of [
      await s.agent.api.get(`${s.base}/custom_filters/${mine.id}`),
      await s.agent.api.patch(`${s.base}/custom_filters/${mine.id}`, { name: 'stolen' }),
      await s.agent.api.delete(`${s.base}/custom_filters/${mine.id}`),
      await other.admin.api.delete(`${other.base}/custom_filters/${mine.id}`),
      await other.admin.api.delete(`${s.base}/custom_filters/${mine.id}`),
      await s.admin.api.delete(`${s.base}/custom_filters/999999999`),
      await s.admin.api.delete(`${s.base}/custom_filters/abc`),
    ]) {
      expect(expectErrorBody(res, 404).errors[0].code).toBe('not_found');
    }
    expect((await s.agent.api.get(`${s.base}/custom_filters`)).body.map((f: { id: number }) => f.id)).not.toContain(mine.id);

    const anon = client((await runtime()).baseUrl);
    expect(expectErrorBody(await anon.delete(`${s.base}/custom_filters/${mine.id}`), 401).errors[0].code).toBe('unauthorized');
    expectErrorBody(await client((await runtime()).baseUrl, 'not-a-token').delete(`${s.base}/custom_filters/${mine.id}`), 401);

    // Still there for its owner.
    expect((await s.admin.api.get(`${s.base}/custom_filters/${mine.id}`)).body.name).toBe('Admin view');
    expect((await s.admin.api.delete(`${s.base}/custom_filters/${mine.id}`)).status).toBe(204);
  });

  it('validates name, filter_type and query with 422 naming the fields', async () => {
    const res = expectErrorBody(await s.admin.api.post(`${s.base}/custom_filters`, { filter_type: 'tickets', query: 'nope' }), 422);
    expect(fieldsOf(res)).toEqual({ name: 'required', filter_type: 'invalid', query: 'invalid' });
    const f = (await s.admin.api.post(`${s.base}/custom_filters`, { name: 'x' })).body;
    expect(
      fieldsOf(expectErrorBody(await s.admin.api.patch(`${s.base}/custom_filters/${f.id}`, { name: '', filter_type: 'x' }), 422)),
    ).toEqual({
      name: 'required',
      filter_type: 'invalid',
    });
    expect(fieldsOf(expectErrorBody(await s.admin.api.get(`${s.base}/custom_filters?filter_type=bogus`), 422))).toEqual({
      filter_type: 'invalid',
    });
  });

  it('refuses more than 1000 filters per user and account', async () => {
    const user = other.agent;
    expect((await user.api.post(`${other.base}/custom_filters`, { name: 'first' })).status).toBe(200);
    // Fast-forward the user's count rather than create 999 filters.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.customFilterCount(other.accountId, user.id),
        UpdateExpression: 'SET #n = :n',
        ExpressionAttributeNames: { '#n': 'count' },
        ExpressionAttributeValues: { ':n': 1000 },
      }),
    );
    const refused = expectErrorBody(await user.api.post(`${other.base}/custom_filters`, { name: 'one too many' }), 422);
    expect(refused.errors[0].code).toBe('limit_reached');
    expect((await user.api.get(`${other.base}/custom_filters`)).body).toHaveLength(1);
    // Another user of the same account is not affected.
    expect((await other.admin.api.post(`${other.base}/custom_filters`, { name: 'admin' })).status).toBe(200);
    // Deleting makes room again.
    const first = (await user.api.get(`${other.base}/custom_filters`)).body[0];
    expect((await user.api.delete(`${other.base}/custom_filters/${first.id}`)).status).toBe(204);
    expect((await user.api.post(`${other.base}/custom_filters`, { name: 'fits again' })).status).toBe(200);
  });
});
