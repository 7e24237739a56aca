import { beforeAll, describe, expect, it } from 'vitest';
import { request as chatwootRequest } from '@figuro/chatwoot-sdk/dist/core/request.js';
import { expectErrorBody, fieldsOf, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { sdk, sdkError } from './sdk.ts';

// POST contacts/filter and conversations/filter with the exact calls of EvolutionAPI's Chatwoot service
// (findContact through the SDK's core `request`, as it does) and of the n8n Chatwoot node, then the
// language itself over HTTP: custom attributes, AND/OR, pages, agents' inbox scope, refusals.

/** EvolutionAPI's getNumbers + getFilterPayload for a WhatsApp number (query is `+<number>`). */
function evolutionFilterPayload(query: string) {
  const numbers = [query];
  if (query.startsWith('+55') && query.length === 14) numbers.push(query.slice(0, 5) + query.slice(6));
  else if (query.startsWith('+55') && query.length === 13) numbers.push(`${query.slice(0, 5)}9${query.slice(5)}`);
  return numbers.map((n, i) => ({
    attribute_key: 'phone_number',
    filter_operator: 'equal_to',
    values: [n.replace('+', '')],
    query_operator: i === numbers.length - 1 ? null : 'OR',
  }));
}

/** A Brazilian mobile number with the ninth digit (13 digits), and the same without it. */
function brazilianPair() {
  const tail = String(Math.floor(Math.random() * 1e8)).padStart(8, '0');
  const area = String(11 + Math.floor(Math.random() * 80));
  return { withNine: `55${area}9${tail}`, withoutNine: `55${area}${tail}` };
}

describe('contacts/filter and conversations/filter', () => {
  let s: SeededAccount;
  let base: string;
  let evolutionConfig: { basePath: string; with_credentials: boolean; credentials: string; token: string };
  const evolutionFind = (phone: string) =>
    chatwootRequest<any>(evolutionConfig as any, {
      method: 'POST',
      url: `/api/v1/accounts/${s.accountId}/contacts/filter`,
      body: { payload: evolutionFilterPayload(`+${phone}`) },
    });
  const contact = async (fields: Record<string, unknown>) => {
    const res = await s.admin.api.post(`${s.base}/contacts`, fields);
    if (res.status !== 200) throw new Error(`contact: ${res.status} ${res.text}`);
    return res.body.payload.contact as { id: number };
  };

  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
    // EvolutionAPI's getClientCwConfig.
    evolutionConfig = { basePath: base, with_credentials: true, credentials: 'include', token: s.admin.token };
  });

  it('finds a WhatsApp contact with EvolutionAPI’s OR’ed phone filter sent without +, whichever Brazilian form is stored', async () => {
    const a = brazilianPair();
    const b = brazilianPair();
    const withNine = await contact({ name: 'Maria', phone_number: `+${a.withNine}`, identifier: `${a.withNine}@s.whatsapp.net` });
    const withoutNine = await contact({ name: 'João', phone_number: `+${b.withoutNine}` });

    const found = await evolutionFind(a.withNine);
    expect(found.meta).toEqual({ count: 1, current_page: 1 });
    expect(found.payload).toHaveLength(1);
    expect(found.payload[0]).toMatchObject({
      id: withNine.id,
      name: 'Maria',
      phone_number: `+${a.withNine}`,
      identifier: `${a.withNine}@s.whatsapp.net`,
    });
    expect(Array.isArray(found.payload[0].contact_inboxes)).toBe(true);
    // The number arrives with the ninth digit; the contact was stored without it.
    expect((await evolutionFind(b.withNine)).payload.map((c: { id: number }) => c.id)).toEqual([withoutNine.id]);
    // A value sent with its + matches too.
    const plus = await s.admin.api.post(`${s.base}/contacts/filter`, {
      payload: [{ attribute_key: 'phone_number', filter_operator: 'equal_to', values: [`+${a.withNine}`], query_operator: null }],
    });
    expect(plus.body.payload.map((c: { id: number }) => c.id)).toEqual([withNine.id]);
    // The exact lookup still applies every other condition.
    const anded = async (name: string) =>
      (
        await s.admin.api.post(`${s.base}/contacts/filter`, {
          payload: [
            { attribute_key: 'phone_number', filter_operator: 'equal_to', values: [a.withNine], query_operator: 'AND' },
            { attribute_key: 'name', filter_operator: 'equal_to', values: [name] },
          ],
        })
      ).body.meta.count;
    expect(await anded('MARIA')).toBe(1);
    expect(await anded('João')).toBe(0);
    // Unknown number: an empty page, not an error (Evolution then creates the contact).
    expect(await evolutionFind(brazilianPair().withNine)).toEqual({ meta: { count: 0, current_page: 1 }, payload: [] });
  });

  it('answers EvolutionAPI’s earlier identifier/phone/name/email "contains" filter, OR’ed over four keys', async () => {
    const a = brazilianPair();
    const c = await contact({ name: 'Ana', identifier: `${a.withNine}@s.whatsapp.net` });
    const payload = ['identifier', 'phone_number', 'name', 'email'].map((key, i, all) => ({
      attribute_key: key,
      filter_operator: key === 'identifier' ? 'equal_to' : 'contains',
      values: key === 'identifier' ? [`${a.withNine}@s.whatsapp.net`] : [`+${a.withNine}`, `+${a.withoutNine}`],
      query_operator: i === all.length - 1 ? null : 'OR',
    }));
    const res = await s.admin.api.post(`${s.base}/contacts/filter`, { payload });
    expect(res.status).toBe(200);
    expect(res.body.payload.map((x: { id: number }) => x.id)).toEqual([c.id]);
  });

  it('filters on custom attributes by the account’s definitions, text ignoring case, AND binding tighter than OR', async () => {
    const key = unique('plan_').replace(/[^\w]/g, '_');
    const def = await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
      attribute_display_name: 'Plan',
      attribute_key: key,
      attribute_model: 'contact_attribute',
      attribute_display_type: 'text',
    });
    expect(def.status).toBe(200);
    const tag = unique('Acme').replace(/[^\w]/g, '');
    const gold = await contact({ name: `${tag} Gold`, email: `${unique('g')}@filter.test`, custom_attributes: { [key]: 'Gold' } });
    const silver = await contact({ name: `${tag} Silver`, email: `${unique('s')}@filter.test`, custom_attributes: { [key]: 'silver' } });
    await contact({ name: 'Someone else', email: `${unique('o')}@filter.test`, custom_attributes: { [key]: 'gold' } });
    const ids = async (payload: unknown[]) => {
      const res = await s.admin.api.post(`${s.base}/contacts/filter`, { payload });
      expect(res.status).toBe(200);
      return (res.body.payload as { id: number }[]).map((c) => c.id).sort((x, y) => x - y);
    };
    const named = { attribute_key: 'name', filter_operator: 'contains', values: [tag.toLowerCase()] };
    expect(
      await ids([
        { ...named, query_operator: 'AND' },
        { attribute_key: key, filter_operator: 'equal_to', values: ['GOLD'] },
      ]),
    ).toEqual([gold.id]);
    // name AND plan=silver OR plan=gold  →  (name AND silver) OR gold: Someone else's gold matches too.
    const either = await ids([
      { ...named, query_operator: 'AND' },
      { attribute_key: key, filter_operator: 'equal_to', values: ['silver'], query_operator: 'OR' },
      { attribute_key: key, filter_operator: 'equal_to', values: ['gold'] },
    ]);
    expect(either).toContain(silver.id);
    expect(either).toContain(gold.id);
    expect(either).toHaveLength(3);
    // A key defined for conversations only is no contact attribute.
    const convKey = unique('conv_').replace(/[^\w]/g, '_');
    await s.admin.api.post(`${s.base}/custom_attribute_definitions`, {
      attribute_display_name: 'C',
      attribute_key: convKey,
      attribute_model: 'conversation_attribute',
    });
    const refused = await s.admin.api.post(`${s.base}/contacts/filter`, {
      payload: [{ attribute_key: convKey, filter_operator: 'equal_to', values: ['x'] }],
    });
    expect(fieldsOf(expectErrorBody(refused, 422))).toEqual({ 'payload[0].attribute_key': 'invalid' });
  });

  it('pages 15 contacts at a time with the n8n node’s body and ?page=, counting them all', async () => {
    const domain = `${unique('n8n').replace(/[^\w]/g, '')}.test`;
    await Promise.all(Array.from({ length: 17 }, (_, i) => contact({ name: `Page ${i}`, email: `p${i}@${domain}` })));
    // n8n: {payload: <the JSON the user typed>} and the page in the query string.
    const payload = [{ attribute_key: 'email', filter_operator: 'contains', values: [`@${domain}`] }];
    const one = await s.admin.api.post(`${s.base}/contacts/filter?page=1`, { payload });
    const two = await s.admin.api.post(`${s.base}/contacts/filter?page=2`, { payload });
    expect(one.body.payload).toHaveLength(15);
    expect(two.body.payload).toHaveLength(2);
    expect(one.body.meta.count).toBe(17);
    expect(two.body.meta).toEqual({ count: 17, current_page: '2' });
    const all = new Set([...one.body.payload, ...two.body.payload].map((c: { email: string }) => c.email));
    expect(all.size).toBe(17);
    // The SDK's filter call (page in the query string too).
    const viaSdk: any = await sdk(base, s.agent.token).contacts.filter({ accountId: s.accountId, payload: payload as any, page: 2 });
    expect(viaSdk.payload).toHaveLength(2);
  });

  it('refuses unknown keys, operators and query operators with 422 in the error body', async () => {
    const refuse = async (payload: unknown, field: string, message: RegExp) => {
      const b = expectErrorBody(await s.admin.api.post(`${s.base}/contacts/filter`, { payload }), 422);
      expect(fieldsOf(b)).toEqual({ [field]: 'invalid' });
      expect(b.description).toMatch(message);
    };
    await refuse(
      [{ attribute_key: 'shoe_size', filter_operator: 'equal_to', values: ['1'] }],
      'payload[0].attribute_key',
      /^Invalid attribute key - \[shoe_size\]/,
    );
    await refuse(
      [{ attribute_key: 'identifier', filter_operator: 'starts_with', values: ['1'] }],
      'payload[0].filter_operator',
      /^Invalid operator\. The allowed operators for identifier are/,
    );
    await refuse(
      [
        { attribute_key: 'name', filter_operator: 'contains', values: ['a'], query_operator: 'NAND' },
        { attribute_key: 'name', filter_operator: 'contains', values: ['b'] },
      ],
      'payload[0].query_operator',
      /^Query operator must be either "AND" or "OR"\.$/,
    );
    await refuse([{ attribute_key: 'email', filter_operator: 'contains', values: [] }], 'payload[0].values', /^Invalid value/);
    const conv = expectErrorBody(
      await s.admin.api.post(`${s.base}/conversations/filter`, {
        payload: [{ attribute_key: 'email', filter_operator: 'equal_to', values: ['x'] }],
      }),
      422,
    );
    expect(fieldsOf(conv)).toEqual({ 'payload[0].attribute_key': 'invalid' });
    const viaSdk = await sdkError(
      sdk(base, s.admin.token).conversations.filter({
        accountId: s.accountId,
        payload: [{ attribute_key: 'status', filter_operator: 'contains', values: ['open'] }] as any,
      }),
    );
    expect(viaSdk.status).toBe(422);
    // No payload at all (Chatwoot's services iterate it unguarded): a client error naming the field, on both routes.
    for (const path of ['contacts/filter', 'conversations/filter']) {
      for (const body of [{}, { payload: null }]) {
        const missing = expectErrorBody(await s.admin.api.post(`${s.base}/${path}`, body), 422);
        expect(fieldsOf(missing)).toEqual({ payload: 'required' });
      }
    }
  });

  it('conversations: the n8n status filter, labels, assignee and custom attributes; agents see only their inboxes; counts follow the filter', async () => {
    const t = await seedAccount();
    const mk = async (path: string, body: unknown) => {
      const res = await t.admin.api.post(`${t.base}${path}`, body);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body;
    };
    const key = 'order_total';
    await mk('/custom_attribute_definitions', {
      attribute_display_name: 'Order total',
      attribute_key: key,
      attribute_model: 'conversation_attribute',
      attribute_display_type: 'number',
    });
    const mine = await mk('/inboxes', { name: 'Agent inbox', channel: { type: 'api' } });
    const other = await mk('/inboxes', { name: 'Other inbox', channel: { type: 'api' } });
    await mk('/inbox_members', { inbox_id: mine.id, user_ids: [t.agent.id] });
    const person = (await mk('/contacts', { name: 'Buyer', email: `${unique('b')}@conv.test` })).payload.contact.id;
    const conv = async (inboxId: number, extra: Record<string, unknown> = {}) =>
      (await mk('/conversations', { inbox_id: inboxId, contact_id: person, ...extra })).id as number;
    const big = await conv(mine.id, { custom_attributes: { [key]: 250 } });
    const small = await conv(mine.id, { custom_attributes: { [key]: 20 } });
    const elsewhere = await conv(other.id, { custom_attributes: { [key]: 900 } });
    const resolved = await conv(mine.id);
    await mk(`/conversations/${big}/labels`, { labels: ['vip'] });
    await mk(`/conversations/${elsewhere}/labels`, { labels: ['vip'] });
    await mk(`/conversations/${small}/assignments`, { assignee_id: t.agent.id });
    await mk(`/conversations/${resolved}/toggle_status`, { status: 'resolved' });

    const filter = async (who: SeededAccount['admin'], payload: unknown[], page?: number) => {
      const res = await who.api.post(`${t.base}/conversations/filter${page ? `?page=${page}` : ''}`, { payload });
      expect(res.status).toBe(200);
      return res.body as { meta: Record<string, number>; payload: { id: number; inbox_id: number; status: string }[] };
    };
    // n8n's example: open conversations. Administrators see both inboxes.
    const open = await filter(t.admin, [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }]);
    expect(open.payload.map((c) => c.id).sort()).toEqual([big, small, elsewhere].sort());
    expect(open.meta).toEqual({ mine_count: 0, unassigned_count: 2, all_count: 3 });
    expect(open.payload[0]).toMatchObject({
      id: expect.any(Number),
      status: 'open',
      inbox_id: expect.any(Number),
      meta: expect.any(Object),
      messages: expect.any(Array),
    });
    // The agent, member of one inbox only.
    const agentOpen = await filter(t.agent, [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['open'] }]);
    expect(agentOpen.payload.map((c) => c.id).sort()).toEqual([big, small].sort());
    expect(agentOpen.meta).toEqual({ mine_count: 1, unassigned_count: 1, all_count: 2 });
    // Labels OR a number custom attribute over 100, in any status.
    const vipOrBig = await filter(t.admin, [
      { attribute_key: 'labels', filter_operator: 'equal_to', values: ['vip'], query_operator: 'OR' },
      { attribute_key: key, filter_operator: 'is_greater_than', values: [100] },
    ]);
    expect(vipOrBig.payload.map((c) => c.id).sort()).toEqual([big, elsewhere].sort());
    // Newest activity first; status all; inbox and assignee.
    const all = await filter(t.admin, [
      { attribute_key: 'status', filter_operator: 'equal_to', values: ['all'], query_operator: 'AND' },
      { attribute_key: 'inbox_id', filter_operator: 'equal_to', values: [String(mine.id)] },
    ]);
    expect(all.payload.map((c) => c.id).sort()).toEqual([big, small, resolved].sort());
    expect(all.meta.all_count).toBe(3);
    const assigned = await filter(t.admin, [{ attribute_key: 'assignee_id', filter_operator: 'is_present' }]);
    expect(assigned.payload.map((c) => c.id)).toEqual([small]);
    // An empty payload is every conversation in scope; page 2 of 4 is empty.
    expect((await filter(t.agent, [])).meta.all_count).toBe(3);
    expect((await filter(t.admin, [], 2)).payload).toEqual([]);
    // Through the SDK.
    const viaSdk: any = await sdk(base, t.admin.token).conversations.filter({
      accountId: t.accountId,
      payload: [{ attribute_key: 'status', filter_operator: 'equal_to', values: ['resolved'] }] as any,
    });
    expect(viaSdk.payload.map((c: { id: number }) => c.id)).toEqual([resolved]);
  });

  it('answers 404 for another account and 401 without a credential', async () => {
    const other = await seedAccount();
    const payload = [{ attribute_key: 'name', filter_operator: 'contains', values: ['a'] }];
    expectErrorBody(await s.admin.api.post(`${other.base}/contacts/filter`, { payload }), 404);
    expectErrorBody(await s.agent.api.post(`${other.base}/conversations/filter`, { payload: [] }), 404);
    const anonymous = await fetch(`${base}${s.base}/contacts/filter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payload }),
    });
    expect(anonymous.status).toBe(401);
  });
});
