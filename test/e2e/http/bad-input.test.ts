import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { getUserIdByEmail } from '#shared/db/repositories/identity.ts';
import { ServiceError } from '#shared/errors.ts';
import { client, expectErrorBody, fieldsOf, runtime, seedAccount, unique, type SeededAccount } from '../../support/runtime.ts';

// What the route-table fuzz (fuzz.test.ts) found, each as the client that met it: an email longer than any
// account's on the sign-in and reset routes, free-form attributes too large, too deep or with numbers
// DynamoDB cannot hold, a message of 150,000 three-byte characters, the widget's pages asked for JSON,
// headers larger than the server reads, and two deletes of one object at once. Each is a 4xx in the error
// body, and the data is unchanged.

/** The raw answer to bytes written on a socket of their own (what fetch would refuse to send). */
function rawRequest(baseUrl: string, request: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let text = '';
    socket.on('data', (d) => (text += String(d)));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('bad input answers 4xx in the error body', () => {
  let base: string;
  let s: SeededAccount;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
    s = await seedAccount();
  });

  it('refuses an email longer than any account can have on sign-in and on the reset request, before looking it up', async () => {
    const anon = client(base);
    for (const path of ['/auth/sign_in', '/auth/password']) {
      for (const email of [`${'a'.repeat(3000)}@example.com`, `${'b'.repeat(500 * 1024)}@example.com`]) {
        const res = await anon.post(path, { email, password: 'Passw0rd!' });
        expect(fieldsOf(expectErrorBody(res, 422))).toEqual({ email: 'too_long' });
      }
    }
    // Past the schemas, the table client itself refuses a key DynamoDB could not take: 422, not a 500.
    const err = await getUserIdByEmail(`${'c'.repeat(3000)}@example.com`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).kind).toBe('invalid');
    // An ordinary unknown email is still the ordinary answer.
    expect((await anon.post('/auth/sign_in', { email: `${unique('nobody')}@example.com`, password: 'Passw0rd!' })).status).toBe(401);
  });

  it('refuses free-form attributes too large, too deep, with an empty name or a number DynamoDB cannot hold, naming the field', async () => {
    const api = s.admin.api;
    const created = await api.post(`${s.base}/contacts`, { name: 'Ada', custom_attributes: { plan: 'gold', score: 1.5 } });
    expect(created.status).toBe(200);
    const id = created.body.payload.contact.id;
    const deep = JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`);
    const cases: [unknown, Record<string, string>][] = [
      [{ blob: 'x'.repeat(20 * 1024) }, { custom_attributes: 'too_long' }],
      [{ n: 1e21 }, { 'custom_attributes.n': 'invalid' }],
      [{ n: -9007199254740992 }, { 'custom_attributes.n': 'invalid' }],
      [{ n: 1e-200 }, { 'custom_attributes.n': 'invalid' }],
      [{ '': 1 }, { custom_attributes: 'invalid' }],
      [{ deep }, { [`custom_attributes.deep${'.a'.repeat(14)}`]: 'invalid' }],
    ];
    for (const [attributes, fields] of cases) {
      const res = await api.patch(`${s.base}/contacts/${id}`, { custom_attributes: attributes });
      expect(fieldsOf(expectErrorBody(res, 422)), JSON.stringify(attributes).slice(0, 80)).toEqual(fields);
    }
    // As large as allowed is taken.
    expect((await api.patch(`${s.base}/contacts/${id}`, { custom_attributes: { blob: 'y'.repeat(15 * 1024) } })).status).toBe(200);
    const shown = await api.get(`${s.base}/contacts/${id}`);
    expect(shown.body.payload.custom_attributes).toMatchObject({ plan: 'gold', score: 1.5, blob: 'y'.repeat(15 * 1024) });
  });

  it("refuses a message whose text is within Chatwoot's 150,000 characters but more bytes than a record holds", async () => {
    const api = s.admin.api;
    const inbox = await api.post(`${s.base}/inboxes`, { name: unique('api'), channel: { type: 'api' } });
    const contact = await api.post(`${s.base}/contacts`, { name: 'Wide' });
    const conv = await api.post(`${s.base}/conversations`, { inbox_id: inbox.body.id, contact_id: contact.body.payload.contact.id });
    const path = `${s.base}/conversations/${conv.body.id}/messages`;
    expect(fieldsOf(expectErrorBody(await api.post(path, { content: '☃'.repeat(150_000) }), 422))).toEqual({ content: 'too_long' });
    // 150,000 one-byte characters are a message.
    const long = await api.post(path, { content: 'a'.repeat(150_000) });
    expect(long.status).toBe(200);
    expect(long.body.content).toHaveLength(150_000);
  });

  it('answers the widget pages in the error body when JSON is asked for, and in HTML for a browser', async () => {
    for (const path of ['/widget?website_token=nope', '/widget/demo?website_token=nope']) {
      const json = await client(base).get(path, { accept: 'application/json' });
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(expectErrorBody(json, 404).errors[0].code).toBe('not_found');
      const page = await fetch(base + path, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    }
  });

  it('answers a request line or headers larger than the server reads with 431 in the error body, and a broken request with 400', async () => {
    for (const request of [
      `GET /health?q=${'q'.repeat(16 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20 * 1024)}\r\n\r\n`,
    ]) {
      const answer = await rawRequest(base, request);
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 431 /);
      expect(head.toLowerCase()).toContain('content-type: application/json');
      expect(JSON.parse(body)).toMatchObject({
        description: expect.any(String),
        errors: [{ field: '', code: 'too_large', message: expect.any(String) }],
      });
    }
    const broken = await rawRequest(base, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(broken).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(broken.split('\r\n\r\n')[1]).errors[0].code).toBe('malformed');
  });

  it('deletes an object once when two deletes come at once: the other is a 404, never a 500', async () => {
    const api = s.admin.api;
    const inbox = await api.post(`${s.base}/inboxes`, {
      name: unique('site'),
      channel: { type: 'web_widget', website_url: 'https://example.com' },
    });
    const made = {
      campaigns: (await api.post(`${s.base}/campaigns`, { title: 'Twice', message: 'Hello', inbox_id: inbox.body.id })).body.id,
      dashboard_apps: (
        await api.post(`${s.base}/dashboard_apps`, { title: 'Twice', content: [{ type: 'frame', url: 'https://example.com' }] })
      ).body.id,
      macros: (
        await api.post(`${s.base}/macros`, {
          name: 'Twice',
          visibility: 'global',
          actions: [{ action_name: 'change_priority', action_params: ['high'] }],
        })
      ).body.payload.id,
    };
    for (const [kind, id] of Object.entries(made)) {
      expect(id, kind).toEqual(expect.any(Number));
      const answers = await Promise.all(Array.from({ length: 4 }, () => api.delete(`${s.base}/${kind}/${id}`)));
      const statuses = answers.map((a) => a.status).sort();
      expect(
        statuses.filter((x) => x < 300),
        `${kind}: ${statuses}`,
      ).toHaveLength(1);
      for (const a of answers.filter((x) => x.status >= 300)) expect(expectErrorBody(a, 404).errors[0].code).toBe('not_found');
    }
  });
});
