import { beforeAll, describe, expect, it } from 'vitest';
import { client, expectErrorBody, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';
import { download, SIGNED_LINK } from '../../support/files.ts';

// Contacts as a Chatwoot client uses them (docs/chatwoot.md#contacts): create, show, update, delete, list, search,
// labels (contract endpoint 5, docs/contract.md#endpoints).

const CONTACT_TYPES = {
  additional_attributes: 'object',
  availability_status: 'string',
  id: 'number',
  name: 'string',
  blocked: 'boolean',
  thumbnail: 'string',
  custom_attributes: 'object',
  created_at: 'number',
} as const;

function expectContactShape(c: Record<string, unknown>) {
  for (const [k, t] of Object.entries(CONTACT_TYPES)) expect(typeof c[k], k).toBe(t);
  for (const k of ['email', 'phone_number', 'identifier']) expect(c[k] === null || typeof c[k] === 'string', k).toBe(true);
  expect(Number.isInteger(c.created_at)).toBe(true);
  expect(['online', 'offline']).toContain(c.availability_status);
}

describe('contacts', () => {
  let s: SeededAccount;
  let other: SeededAccount;
  beforeAll(async () => {
    await runtime();
    [s, other] = await Promise.all([seedAccount(), seedAccount()]);
  });

  const create = async (acct: SeededAccount, body: Record<string, unknown>) => {
    const res = await acct.admin.api.post(`${acct.base}/contacts`, body);
    if (res.status !== 200) throw new Error(`create contact: ${res.status} ${res.text}`);
    return res.body.payload.contact as Record<string, any>;
  };

  describe('create', () => {
    it('creates a contact and answers Chatwoot create payload', async () => {
      const email = `${unique('Ada')}@Example.COM`;
      const res = await s.agent.api.post(`${s.base}/contacts`, {
        name: 'Ada Lovelace',
        email,
        phone_number: '+4915112345678',
        identifier: unique('ada-'),
        additional_attributes: { city: 'London', company_name: 'Engines' },
        custom_attributes: { plan: 'gold', seats: 3 },
      });
      expect(res.status).toBe(200);
      const { contact, contact_inbox } = res.body.payload;
      expectContactShape(contact);
      expect(contact).toMatchObject({
        name: 'Ada Lovelace',
        email: email.toLowerCase(),
        phone_number: '+4915112345678',
        blocked: false,
        thumbnail: '',
        availability_status: 'offline',
        additional_attributes: { city: 'London', company_name: 'Engines' },
        custom_attributes: { plan: 'gold', seats: 3 },
        contact_inboxes: [],
      });
      expect(contact).not.toHaveProperty('last_activity_at');
      expect(contact_inbox).toEqual({ inbox: null, source_id: null });
    });

    it('accepts the fields under the `contact` root key and as a form', async () => {
      const wrapped = await s.admin.api.post(`${s.base}/contacts`, { contact: { name: 'Wrapped', identifier: unique('w-') } });
      expect(wrapped.status).toBe(200);
      expect(wrapped.body.payload.contact.name).toBe('Wrapped');
      const id = unique('f-');
      const form = await s.admin.api.request(
        'POST',
        `${s.base}/contacts`,
        `contact[name]=Formed&contact[identifier]=${id}&contact[blocked]=true&contact[custom_attributes][tier]=x`,
        {
          'content-type': 'application/x-www-form-urlencoded',
        },
      );
      expect(form.status).toBe(200);
      expect(form.body.payload.contact).toMatchObject({ name: 'Formed', identifier: id, blocked: true, custom_attributes: { tier: 'x' } });
    });

    it('creates a contact with nothing but a name (empty strings become null)', async () => {
      const c = await create(s, { name: 'Just a name', email: '', phone_number: '', identifier: '' });
      expect(c).toMatchObject({ name: 'Just a name', email: null, phone_number: null, identifier: null });
      const bare = await create(s, {});
      expect(bare.name).toBe('');
    });

    it('validates email, phone (E.164), lengths, booleans and attribute objects with 422 naming each field', async () => {
      const res = await s.admin.api.post(`${s.base}/contacts`, {
        name: 'n'.repeat(256),
        email: 'not-an-email',
        phone_number: '0049 151',
        blocked: 'maybe',
        custom_attributes: 'nope',
      });
      const body = expectErrorBody(res, 422);
      const byField = Object.fromEntries(body.errors.map((e) => [e.field, e.code]));
      expect(byField).toMatchObject({
        name: 'too_long',
        email: 'invalid',
        phone_number: 'invalid',
        blocked: 'invalid',
        custom_attributes: 'invalid',
      });
      for (const phone of ['+0123456', '+1', '+1234567890123456', '12345678']) {
        const r = expectErrorBody(await s.admin.api.post(`${s.base}/contacts`, { phone_number: phone }), 422);
        expect(r.errors[0]).toMatchObject({ field: 'phone_number', code: 'invalid' });
      }
    });

    it('keeps email (ignoring case), phone number and identifier unique per account', async () => {
      const email = `${unique('dup')}@example.com`;
      const phone = `+1555${Date.now().toString().slice(-7)}`;
      const identifier = unique('id-');
      await create(s, { email, phone_number: phone, identifier });
      for (const [field, body] of [
        ['email', { email: email.toUpperCase() }],
        ['phone_number', { phone_number: phone }],
        ['identifier', { identifier }],
      ] as const) {
        const err = expectErrorBody(await s.admin.api.post(`${s.base}/contacts`, body), 422);
        expect(err.errors).toEqual([expect.objectContaining({ field, code: 'taken' })]);
      }
      // Identifiers are case-sensitive; another account is another namespace.
      await create(s, { identifier: identifier.toUpperCase() });
      await create(other, { email, phone_number: phone, identifier });
    });

    it('refuses agent bot tokens', async () => {
      const bot = await s.platform.post('/platform/api/v1/agent_bots', { name: 'Bot', account_id: s.accountId });
      const rt = await runtime();
      const res = await client(rt.baseUrl, bot.body.access_token).post(`${s.base}/contacts`, { name: 'From a bot' });
      expectErrorBody(res, 403);
    });
  });

  describe('show, update, delete', () => {
    it('shows a contact to any member; absent and foreign contacts are 404', async () => {
      const c = await create(s, { name: 'Shown', email: `${unique('shown')}@example.com` });
      const shown = await s.agent.api.get(`${s.base}/contacts/${c.id}`);
      expect(shown.status).toBe(200);
      expectContactShape(shown.body.payload);
      expect(shown.body.payload).toMatchObject({ id: c.id, name: 'Shown', contact_inboxes: [] });
      const without = await s.agent.api.get(`${s.base}/contacts/${c.id}?include_contact_inboxes=false`);
      expect(without.body.payload).not.toHaveProperty('contact_inboxes');

      expect(expectErrorBody(await other.admin.api.get(`${other.base}/contacts/${c.id}`), 404).errors[0].code).toBe('not_found');
      expectErrorBody(await other.admin.api.get(`${s.base}/contacts/${c.id}`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/contacts/999999999`), 404);
      expectErrorBody(await s.admin.api.get(`${s.base}/contacts/abc`), 404);
    });

    it('updates given fields and merges attribute hashes; PUT works too', async () => {
      const c = await create(s, {
        name: 'Before',
        email: `${unique('upd')}@example.com`,
        additional_attributes: { city: 'Paris', company_name: 'Old' },
        custom_attributes: { a: 1, b: 2 },
      });
      const res = await s.agent.api.patch(`${s.base}/contacts/${c.id}`, {
        name: 'After',
        additional_attributes: { company_name: 'New' },
        custom_attributes: { b: 3, c: 4 },
      });
      expect(res.status).toBe(200);
      expectContactShape(res.body.payload);
      expect(res.body.payload).toMatchObject({
        id: c.id,
        name: 'After',
        email: c.email,
        additional_attributes: { city: 'Paris', company_name: 'New' },
        custom_attributes: { a: 1, b: 3, c: 4 },
        contact_inboxes: [],
      });
      const put = await s.admin.api.put(`${s.base}/contacts/${c.id}`, { contact: { blocked: true, email: null } });
      expect(put.body.payload).toMatchObject({ blocked: true, email: null, name: 'After' });
      expect((await s.admin.api.get(`${s.base}/contacts/${c.id}`)).body.payload).toMatchObject({ blocked: true, email: null });
    });

    it('moves uniqueness with the values: a changed email is free again, a taken one is 422', async () => {
      const [e1, e2] = [`${unique('m1')}@example.com`, `${unique('m2')}@example.com`];
      const a = await create(s, { email: e1 });
      const b = await create(s, { email: e2 });
      expect(expectErrorBody(await s.admin.api.patch(`${s.base}/contacts/${b.id}`, { email: e1 }), 422).errors[0]).toMatchObject({
        field: 'email',
        code: 'taken',
      });
      expect((await s.admin.api.patch(`${s.base}/contacts/${a.id}`, { email: `${unique('m3')}@example.com` })).status).toBe(200);
      expect((await s.admin.api.patch(`${s.base}/contacts/${b.id}`, { email: e1 })).body.payload.email).toBe(e1);
      // Re-sending its own values is no conflict.
      expect((await s.admin.api.patch(`${s.base}/contacts/${b.id}`, { email: e1.toUpperCase() })).status).toBe(200);
    });

    it('validates updates and answers 404 for foreign contacts', async () => {
      const c = await create(s, { identifier: unique('v-') });
      expect(expectErrorBody(await s.admin.api.patch(`${s.base}/contacts/${c.id}`, { phone_number: '555' }), 422).errors[0].field).toBe(
        'phone_number',
      );
      expectErrorBody(await other.admin.api.patch(`${other.base}/contacts/${c.id}`, { name: 'x' }), 404);
      expect((await s.admin.api.get(`${s.base}/contacts/${c.id}`)).body.payload.name).toBe('');
    });

    it('deletes (administrators only), freeing email, phone and identifier', async () => {
      const email = `${unique('del')}@example.com`;
      const identifier = unique('del-');
      const c = await create(s, { email, identifier, phone_number: `+4930123456${String(Date.now() % 1000).padStart(3, '0')}` });
      expectErrorBody(await s.agent.api.delete(`${s.base}/contacts/${c.id}`), 403);
      expectErrorBody(await other.admin.api.delete(`${other.base}/contacts/${c.id}`), 404);
      const del = await s.admin.api.delete(`${s.base}/contacts/${c.id}`);
      expect(del.status).toBe(200);
      expect(del.text).toBe('');
      expectErrorBody(await s.admin.api.get(`${s.base}/contacts/${c.id}`), 404);
      expectErrorBody(await s.admin.api.delete(`${s.base}/contacts/${c.id}`), 404);
      const again = await create(s, { email, identifier, phone_number: c.phone_number });
      expect(again.id).not.toBe(c.id);
    });

    it('takes an uploaded avatar (multipart) on create and update', async () => {
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
      const form = new FormData();
      form.append('name', 'With avatar');
      form.append('identifier', unique('av-'));
      form.append('custom_attributes', JSON.stringify({ tier: 'gold' }));
      form.append('avatar', new Blob([png], { type: 'image/png' }), 'me.png');
      const res = await s.agent.api.post(`${s.base}/contacts`, form);
      expect(res.status).toBe(200);
      const c = res.body.payload.contact;
      expect(c).toMatchObject({ name: 'With avatar', custom_attributes: { tier: 'gold' } });
      expect(c.thumbnail).toMatch(SIGNED_LINK);
      expect(await download(c.thumbnail)).toEqual(png);

      const again = new FormData();
      again.append('avatar', new Blob([png], { type: 'image/png' }), 'new.png');
      const upd = await s.agent.api.patch(`${s.base}/contacts/${c.id}`, again);
      expect(upd.body.payload.thumbnail).toMatch(SIGNED_LINK);
      expect(upd.body.payload.thumbnail).not.toBe(c.thumbnail);

      const bad = new FormData();
      bad.append('avatar', new Blob(['plain'], { type: 'text/plain' }), 'x.txt');
      expect(expectErrorBody(await s.agent.api.patch(`${s.base}/contacts/${c.id}`, bad), 422).errors[0].field).toBe('avatar');
      const foreign = new FormData();
      foreign.append('avatar', new Blob([png], { type: 'image/png' }), 'x.png');
      expectErrorBody(await other.admin.api.patch(`${other.base}/contacts/${c.id}`, foreign), 404);
    });

    it('removes custom attributes by key and the avatar', async () => {
      const c = await create(s, {
        identifier: unique('ca-'),
        avatar_url: 'https://example.com/a.png',
        custom_attributes: { keep: 1, drop: 2, also: 3 },
      });
      expect(c.thumbnail).toBe('https://example.com/a.png');
      const res = await s.agent.api.post(`${s.base}/contacts/${c.id}/destroy_custom_attributes`, {
        custom_attributes: ['drop', 'also', 'absent'],
      });
      expect(res.status).toBe(200);
      expect(res.body.payload.custom_attributes).toEqual({ keep: 1 });
      const av = await s.agent.api.delete(`${s.base}/contacts/${c.id}/avatar`);
      expect(av.body.payload.thumbnail).toBe('');
      expectErrorBody(await other.admin.api.delete(`${other.base}/contacts/${c.id}/avatar`), 404);
    });
  });

  describe('labels (contract endpoint 5)', () => {
    it('replaces the whole list and reads it back', async () => {
      const c = await create(s, { identifier: unique('lab-') });
      expect((await s.agent.api.get(`${s.base}/contacts/${c.id}/labels`)).body).toEqual({ payload: [] });
      const first = await s.agent.api.post(`${s.base}/contacts/${c.id}/labels`, { labels: ['vip', 'billing'] });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ payload: ['vip', 'billing'] });
      const second = await s.agent.api.post(`${s.base}/contacts/${c.id}/labels`, { labels: [' support ', 'SUPPORT', 'a,b', ''] });
      expect(second.body).toEqual({ payload: ['support', 'a', 'b'] });
      expect((await s.admin.api.get(`${s.base}/contacts/${c.id}/labels`)).body).toEqual({ payload: ['support', 'a', 'b'] });
      expect((await s.admin.api.post(`${s.base}/contacts/${c.id}/labels`, { labels: [] })).body).toEqual({ payload: [] });
    });

    it('answers 422 for a body that is not a list of strings and 404 for unknown or foreign contacts', async () => {
      const c = await create(s, { identifier: unique('lab-') });
      // One label, or numbers, are a list of strings as Rails reads them (acts-as-taggable takes both).
      expect((await s.admin.api.post(`${s.base}/contacts/${c.id}/labels`, { labels: 'vip' })).body).toEqual({ payload: ['vip'] });
      expect((await s.admin.api.post(`${s.base}/contacts/${c.id}/labels`, { labels: [1, 2] })).body).toEqual({ payload: ['1', '2'] });
      for (const labels of [[{ a: 1 }], ['x'.repeat(256)], { a: 'b' }]) {
        const err = expectErrorBody(await s.admin.api.post(`${s.base}/contacts/${c.id}/labels`, { labels }), 422);
        expect(err.errors[0].field).toMatch(/^labels/);
      }
      expectErrorBody(await other.admin.api.post(`${other.base}/contacts/${c.id}/labels`, { labels: ['x'] }), 404);
      expectErrorBody(await other.admin.api.get(`${other.base}/contacts/${c.id}/labels`), 404);
      expectErrorBody(await s.admin.api.post(`${s.base}/contacts/999999999/labels`, { labels: ['x'] }), 404);
      // The refusals changed nothing: the labels are still the numbers' strings.
      expect((await s.admin.api.get(`${s.base}/contacts/${c.id}/labels`)).body).toEqual({ payload: ['1', '2'] });
    });
  });

  describe('list and search', () => {
    let acct: SeededAccount;
    const made: Record<string, any>[] = [];
    beforeAll(async () => {
      acct = await seedAccount();
      // 17 listed contacts plus some that Chatwoot never lists (no email, phone or identifier).
      for (let i = 0; i < 17; i++) {
        made.push(
          await create(acct, {
            name: `Person ${String.fromCharCode(65 + ((i * 7) % 17))}${i}`,
            email: i % 3 === 0 ? null : `p${i}@list.example`,
            phone_number: i % 3 === 0 ? `+1202555${String(i).padStart(4, '0')}` : null,
            identifier: i === 5 ? 'CaseSensitive-ID' : null,
            additional_attributes: i === 4 ? { company_name: 'Acme Widgets' } : {},
          }),
        );
      }
      await create(acct, { name: 'Person nameonly' });
      await create(acct, { name: 'Person blank', email: '' });
    });

    it('lists resolved contacts 15 a page with the total count; current_page echoes the page param', async () => {
      const first = await acct.agent.api.get(`${acct.base}/contacts`);
      expect(first.status).toBe(200);
      expect(first.body.meta).toEqual({ count: 17, current_page: 1 });
      expect(first.body.payload).toHaveLength(15);
      first.body.payload.forEach(expectContactShape);
      expect(first.body.payload[0].contact_inboxes).toEqual([]);
      const second = await acct.agent.api.get(`${acct.base}/contacts?page=2`);
      expect(second.body.meta).toEqual({ count: 17, current_page: '2' });
      expect(second.body.payload).toHaveLength(2);
      const ids = [...first.body.payload, ...second.body.payload].map((c: any) => c.id);
      expect(new Set(ids)).toEqual(new Set(made.map((c) => c.id)));
      expect((await acct.agent.api.get(`${acct.base}/contacts?page=3`)).body.payload).toEqual([]);
      const noInboxes = await acct.agent.api.get(`${acct.base}/contacts?include_contact_inboxes=false`);
      expect(noInboxes.body.payload[0]).not.toHaveProperty('contact_inboxes');
    });

    it('sorts by the Sift fields, `-` for descending, nulls last; unknown sorts are 422', async () => {
      const names = (await acct.admin.api.get(`${acct.base}/contacts?sort=name&include_contact_inboxes=false`)).body.payload.map(
        (c: any) => c.name,
      );
      const expected = made.map((c) => c.name).sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
      expect(names).toEqual(expected.slice(0, 15));
      const desc = (await acct.admin.api.get(`${acct.base}/contacts?sort=-name`)).body.payload.map((c: any) => c.name);
      expect(desc).toEqual([...expected].reverse().slice(0, 15));
      const byEmail = [
        ...(await acct.admin.api.get(`${acct.base}/contacts?sort=email`)).body.payload,
        ...(await acct.admin.api.get(`${acct.base}/contacts?sort=email&page=2`)).body.payload,
      ].map((c: any) => c.email);
      const withEmail = byEmail.filter((e: string | null) => e !== null);
      expect(withEmail).toEqual([...withEmail].sort());
      expect(byEmail.slice(withEmail.length).every((e: unknown) => e === null)).toBe(true);
      const byCompany = (await acct.admin.api.get(`${acct.base}/contacts?sort=-company`)).body.payload;
      expect(byCompany[0].additional_attributes.company_name).toBe('Acme Widgets');
      const err = expectErrorBody(await acct.admin.api.get(`${acct.base}/contacts?sort=favourite`), 422);
      expect(err.errors[0]).toMatchObject({ field: 'sort', code: 'invalid' });
    });

    it('searches name, email, phone and company ignoring case, identifier with case', async () => {
      const search = async (q: string) => (await acct.agent.api.get(`${acct.base}/contacts/search?q=${encodeURIComponent(q)}`)).body;
      expect((await search('person')).meta.count).toBe(17);
      const byEmail = await search('P4@LIST');
      expect(byEmail.payload.map((c: any) => c.email)).toEqual(['p4@list.example']);
      expect((await search('2025550003')).payload.map((c: any) => c.phone_number)).toEqual(['+12025550003']);
      expect((await search('acme')).payload.map((c: any) => c.id)).toEqual([made[4].id]);
      expect((await search('CaseSensitive')).payload.map((c: any) => c.id)).toEqual([made[5].id]);
      expect((await search('casesensitive')).meta.count).toBe(0);
      expect((await search('nameonly')).meta).toEqual({ count: 0, current_page: 1 });
      const paged = await acct.agent.api.get(`${acct.base}/contacts/search?q=person&page=2`);
      expect(paged.body.meta).toEqual({ count: 17, current_page: '2' });
      expect(paged.body.payload).toHaveLength(2);
      for (const path of ['/contacts/search', '/contacts/search?q=', '/contacts/search?q=%20%20']) {
        expect(expectErrorBody(await acct.agent.api.get(`${acct.base}${path}`), 422).errors[0]).toMatchObject({
          field: 'q',
          code: 'required',
        });
      }
    });

    it('filters by labels (any of, ignoring case) and follows updates', async () => {
      await acct.admin.api.post(`${acct.base}/contacts/${made[1].id}/labels`, { labels: ['Lead'] });
      await acct.admin.api.post(`${acct.base}/contacts/${made[2].id}/labels`, { labels: ['churned', 'x'] });
      const res = await acct.agent.api.get(`${acct.base}/contacts?labels[]=lead&labels[]=churned&sort=created_at`);
      expect(res.body.meta.count).toBe(2);
      expect(res.body.payload.map((c: any) => c.id)).toEqual([made[1].id, made[2].id]);
      const searched = await acct.agent.api.get(`${acct.base}/contacts/search?q=p2@&labels[]=churned`);
      expect(searched.body.payload.map((c: any) => c.id)).toEqual([made[2].id]);

      // A contact that loses its last identity leaves the list; one that gains it enters.
      const hidden = await create(acct, { name: 'Late' });
      await acct.admin.api.patch(`${acct.base}/contacts/${hidden.id}`, { email: 'late@list.example' });
      await acct.admin.api.patch(`${acct.base}/contacts/${made[0].id}`, { phone_number: '' });
      const after = await acct.admin.api.get(`${acct.base}/contacts/search?q=late`);
      expect(after.body.payload.map((c: any) => c.id)).toEqual([hidden.id]);
      expect((await acct.admin.api.get(`${acct.base}/contacts`)).body.meta.count).toBe(17);
      expect((await acct.admin.api.get(`${acct.base}/contacts/search?q=${encodeURIComponent(made[0].phone_number)}`)).body.meta.count).toBe(
        0,
      );
    });

    it('never shows another account its contacts', async () => {
      expect((await other.admin.api.get(`${other.base}/contacts/search?q=list.example`)).body.meta.count).toBe(0);
      expectErrorBody(await other.admin.api.get(`${acct.base}/contacts`), 404);
    });
  });

  it('puts each change on the stream as one contact item with old and new images', async () => {
    const c = await create(s, { name: 'Streamed', identifier: unique('st-') });
    await s.admin.api.patch(`${s.base}/contacts/${c.id}`, { name: 'Streamed 2' });
    await s.admin.api.patch(`${s.base}/contacts/${c.id}`, { name: 'Streamed 2' });
    await s.admin.api.delete(`${s.base}/contacts/${c.id}`);
    const changes = await streamChanges((ch) => ch.type === 'contact' && (ch.newImage ?? ch.oldImage)?.id === c.id);
    expect(changes.map((ch) => ch.action)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    expect(changes[0].newImage).toMatchObject({ account_id: s.accountId, name: 'Streamed', identifier: c.identifier });
    expect(changes[1].oldImage).toMatchObject({ name: 'Streamed' });
    expect(changes[1].newImage).toMatchObject({ name: 'Streamed 2' });
    expect(changes[2].oldImage).toMatchObject({ name: 'Streamed 2' });
  });
});
