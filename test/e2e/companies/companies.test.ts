import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, fieldsOf, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';

// Companies (Chatwoot's enterprise CompaniesController, the n8n node's calls): CRUD, search, paging, the
// business-domain link of new contacts and contacts_count; agents create and update, administrators delete.

type Company = { id: number; name: string; domain: string | null; contacts_count: number };

describe('companies', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  const domainOf = (prefix: string) => `${unique(prefix)}.example`.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  const create = async (body: Record<string, unknown>, api = s.agent.api) => {
    const res = await api.post(`${s.base}/companies`, { company: body });
    if (res.status !== 200) throw new Error(`create company: ${res.status} ${res.text}`);
    return res.body.payload as Company;
  };
  const contact = async (email: string) => {
    const res = await s.agent.api.post(`${s.base}/contacts`, { name: 'Employee', email });
    if (res.status !== 200) throw new Error(`create contact: ${res.status} ${res.text}`);
    return res.body.payload.contact as { id: number; company_id?: number };
  };
  const show = async (id: number) => (await s.agent.api.get(`${s.base}/companies/${id}`)).body.payload as Company;

  beforeAll(async () => {
    await runtime();
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
  });

  it('creates, shows, updates (agents) and deletes (administrators) with Chatwoot’s shapes', async () => {
    const domain = domainOf('acme');
    const made = await s.agent.api.post(`${s.base}/companies`, {
      company: { name: 'Acme', domain: domain.toUpperCase(), description: 'Rockets' },
    });
    expect(made.status).toBe(200);
    const c = made.body.payload;
    expect(c).toEqual({
      id: expect.any(Number),
      name: 'Acme',
      contacts_count: 0,
      domain,
      description: 'Rockets',
      avatar_url: '',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await s.agent.api.get(`${s.base}/companies/${c.id}`)).body).toEqual({ payload: c });

    const updated = await s.agent.api.patch(`${s.base}/companies/${c.id}`, { company: { name: 'Acme Inc', description: null } });
    expect(updated.status).toBe(200);
    expect(updated.body.payload).toMatchObject({ id: c.id, name: 'Acme Inc', domain, description: null });
    // Top-level fields work too (PUT).
    expect((await s.agent.api.put(`${s.base}/companies/${c.id}`, { description: 'Again' })).body.payload.description).toBe('Again');

    expectErrorBody(await s.agent.api.delete(`${s.base}/companies/${c.id}`), 403);
    expect((await s.admin.api.delete(`${s.base}/companies/${c.id}`)).status).toBe(200);
    expectErrorBody(await s.agent.api.get(`${s.base}/companies/${c.id}`), 404);
    // Its domain is free again.
    expect((await create({ name: 'Acme again', domain })).domain).toBe(domain);
  });

  it('answers 422 for a blank name, a malformed or taken domain; 404 for another account’s company', async () => {
    const domain = domainOf('taken');
    await create({ name: 'First', domain });
    expect(fieldsOf(expectErrorBody(await s.agent.api.post(`${s.base}/companies`, { company: { name: 'Second', domain } }), 422))).toEqual({
      domain: 'taken',
    });
    expect(fieldsOf(expectErrorBody(await s.agent.api.post(`${s.base}/companies`, { company: { name: ' ' } }), 422))).toHaveProperty(
      'name',
    );
    expect(
      fieldsOf(expectErrorBody(await s.agent.api.post(`${s.base}/companies`, { company: { name: 'Bad', domain: 'not a domain' } }), 422)),
    ).toHaveProperty('domain');
    expectErrorBody(await s.agent.api.post(`${s.base}/companies`, { company: { name: 'x'.repeat(101) } }), 422);
    const theirs = (await other.admin.api.post(`${other.base}/companies`, { company: { name: 'Theirs' } })).body.payload;
    expectErrorBody(await s.admin.api.get(`${s.base}/companies/${theirs.id}`), 404);
    expectErrorBody(await s.admin.api.patch(`${s.base}/companies/${theirs.id}`, { name: 'Mine' }), 404);
    expectErrorBody(await s.admin.api.delete(`${s.base}/companies/${theirs.id}`), 404);
  });

  it('links a new contact on the company’s business domain and counts it; free mail and other domains stay unlinked', async () => {
    const domain = domainOf('staff');
    const co = await create({ name: 'Staffed', domain });
    const a = await contact(`ana@${domain.toUpperCase()}`);
    const b = await contact(`bo@${domain}`);
    expect(a.company_id).toBe(co.id);
    expect(b.company_id).toBe(co.id);
    expect((await s.agent.api.get(`${s.base}/contacts/${a.id}`)).body.payload.company_id).toBe(co.id);
    expect((await contact(`cy@${domainOf('elsewhere')}`)).company_id).toBeUndefined();
    expect((await show(co.id)).contacts_count).toBe(2);

    // A company on a free-mail domain links nobody (the rule is about business domains).
    const free = await create({ name: 'Gmail fans', domain: 'gmail.com' });
    expect((await contact(`${unique('fan')}@gmail.com`)).company_id).toBeUndefined();
    expect((await show(free.id)).contacts_count).toBe(0);

    // A deleted contact is counted out; a deleted company leaves its contacts, unlinked.
    expect((await s.admin.api.delete(`${s.base}/contacts/${b.id}`)).status).toBe(200);
    expect((await show(co.id)).contacts_count).toBe(1);
    expect((await s.admin.api.delete(`${s.base}/companies/${co.id}`)).status).toBe(200);
    const kept = await s.agent.api.get(`${s.base}/contacts/${a.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.payload.company_id).toBeUndefined();
    expect((await s.admin.api.delete(`${s.base}/companies/${free.id}`)).status).toBe(200);
  });

  it('links a contact that gets its first email on the domain, as Chatwoot’s update callback; a changed email moves nothing', async () => {
    const domain = domainOf('later');
    const co = await create({ name: 'Later', domain });
    const made = await s.agent.api.post(`${s.base}/contacts`, { name: 'No email yet', phone_number: `+1555${Date.now() % 10_000_000}` });
    expect(made.status).toBe(200);
    const bare = made.body.payload.contact as { id: number; company_id?: number };
    expect(bare.company_id).toBeUndefined();
    const updated = await s.agent.api.put(`${s.base}/contacts/${bare.id}`, { email: `dee@${domain}` });
    expect(updated.status).toBe(200);
    expect(updated.body.payload.company_id).toBe(co.id);
    expect((await s.agent.api.get(`${s.base}/contacts/${bare.id}`)).body.payload.company_id).toBe(co.id);
    expect((await show(co.id)).contacts_count).toBe(1);
    // Another update of the linked contact counts it no second time.
    expect((await s.agent.api.put(`${s.base}/contacts/${bare.id}`, { name: 'Dee' })).status).toBe(200);
    expect((await show(co.id)).contacts_count).toBe(1);

    // Chatwoot links only on a first email: a contact whose email moves onto the domain stays unlinked.
    const moved = await contact(`eve@${domainOf('before')}`);
    const changed = await s.agent.api.put(`${s.base}/contacts/${moved.id}`, { email: `eve@${domain}` });
    expect(changed.status).toBe(200);
    expect(changed.body.payload.company_id).toBeUndefined();
    expect((await show(co.id)).contacts_count).toBe(1);
  });

  it('lists by name 25 a page with meta, sorts, and searches name or domain (q required)', async () => {
    const acct = await seedAccount();
    const api = acct.admin.api;
    const names = Array.from({ length: 27 }, (_, i) => `Co ${String(i).padStart(2, '0')}`);
    for (const [i, name] of [...names].reverse().entries()) {
      const res = await api.post(`${acct.base}/companies`, { name, domain: i === 0 ? 'zeta-labs.example' : undefined });
      if (res.status !== 200) throw new Error(res.text);
    }
    const first = await api.get(`${acct.base}/companies`);
    expect(first.status).toBe(200);
    expect(first.body.meta).toEqual({ total_count: 27, page: 1 });
    expect(first.body.payload.map((c: Company) => c.name)).toEqual(names.slice(0, 25));
    const second = await api.get(`${acct.base}/companies?page=2`);
    expect(second.body.payload.map((c: Company) => c.name)).toEqual(names.slice(25));
    expect((await api.get(`${acct.base}/companies?sort=-name`)).body.payload[0].name).toBe('Co 26');

    const found = await acct.agent.api.get(`${acct.base}/companies/search?q=ZETA`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({ meta: { count: 1, current_page: 1 }, payload: [expect.objectContaining({ name: 'Co 26' })] });
    const byName = await acct.agent.api.get(`${acct.base}/companies/search?q=co%202`);
    expect(byName.body.meta.count).toBe(7);
    expect(fieldsOf(expectErrorBody(await acct.agent.api.get(`${acct.base}/companies/search`), 422))).toEqual({ q: 'blank' });
    // Another account sees none of them.
    expect((await s.agent.api.get(`${s.base}/companies/search?q=zeta-labs`)).body.meta.count).toBe(0);
  });
});
