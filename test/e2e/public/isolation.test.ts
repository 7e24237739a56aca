import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, type Client, type Res } from '../../support/runtime.ts';
import {
  anonymous,
  apiInbox,
  contactPath,
  conversationPath,
  inboxPath,
  ok,
  publicContact,
  publicConversation,
  publicMessage,
  seedAccount,
  unique,
  type ApiInbox,
  type PublicContact,
  type SeededAccount,
} from './fixtures.ts';

// docs/chatwoot.md#public-routes-and-identifiers and docs/chatwoot.md#public-errors: the identifiers in the path are
// the credential. Every wrong combination (another inbox's identifier, another contact's source id, another contact's
// or account's conversation, a non-API inbox, garbage) answers 404 with the error body, changes nothing and shows
// nothing.

type Call = [method: string, path: string, body?: unknown];

/** The routes of one contact inbox. */
function contactRoutes(inbox: string, sourceId: string): Call[] {
  const contact = contactPath(inbox, sourceId);
  return [
    ['GET', contact],
    ['PATCH', contact, { name: 'hijacked' }],
    ['PUT', contact, { name: 'hijacked' }],
    ['GET', `${contact}/conversations`],
    ['POST', `${contact}/conversations`, {}],
  ];
}

/** The routes of one conversation. */
function conversationRoutes(inbox: string, sourceId: string, conversationId: number | string, messageId: number | string = 1): Call[] {
  const conv = conversationPath(inbox, sourceId, conversationId);
  return [
    ['GET', conv],
    ['POST', `${conv}/toggle_status`],
    ['POST', `${conv}/toggle_typing`, { typing_status: 'on' }],
    ['POST', `${conv}/update_last_seen`],
    ['GET', `${conv}/messages`],
    ['POST', `${conv}/messages`, { content: 'hijacked' }],
    ['PATCH', `${conv}/messages/${messageId}`, { submitted_values: [{ value: 'x' }] }],
    ['PUT', `${conv}/messages/${messageId}`, { submitted_values: [{ value: 'x' }] }],
  ];
}

/** Every route below the inbox, for one combination of identifiers. */
const everyRoute = (inbox: string, sourceId: string, conversationId: number | string) => [
  ...contactRoutes(inbox, sourceId),
  ...conversationRoutes(inbox, sourceId, conversationId),
];

describe('public interface: identifiers are the credential', () => {
  let a: SeededAccount;
  let b: SeededAccount;
  let api: Client;
  let inbox1: ApiInbox;
  let inbox2: ApiInbox;
  let inboxB: ApiInbox;
  let widgetToken: string;
  let x1: PublicContact; // contact X in inbox 1
  let x2: PublicContact; // the same contact X in inbox 2
  let y: PublicContact;
  let z: PublicContact; // account B
  let cX1: Record<string, any>;
  let cX2: Record<string, any>;
  let cY: Record<string, any>;
  let cZ: Record<string, any>;
  let select: Record<string, any>;
  let secrets: string[];

  beforeAll(async () => {
    [a, b] = await Promise.all([seedAccount(), seedAccount()]);
    api = await anonymous();
    [inbox1, inbox2, inboxB] = await Promise.all([apiInbox(a), apiInbox(a), apiInbox(b)]);
    const widget = ok(
      await a.admin.api.post(`${a.base}/inboxes`, { name: 'site', channel: { type: 'web_widget', website_url: 'https://example.com' } }),
      'widget',
    );
    expect(widget.inbox_identifier ?? null).toBeNull();
    widgetToken = widget.website_token;
    const identifier = unique('x-');
    x1 = await publicContact(api, inbox1, { identifier, email: `${unique('x')}@example.com` });
    x2 = await publicContact(api, inbox2, { identifier });
    expect(x2.id).toBe(x1.id);
    y = await publicContact(api, inbox1, { email: `${unique('y')}@example.com` });
    z = await publicContact(api, inboxB, { email: `${unique('z')}@example.com` });
    cX1 = await publicConversation(api, inbox1, x1.source_id);
    cX2 = await publicConversation(api, inbox2, x2.source_id);
    cY = await publicConversation(api, inbox1, y.source_id);
    cZ = await publicConversation(api, inboxB, z.source_id);
    // Display ids are per account: B's only conversation is 1, A's go up to 3.
    expect([cX1.id, cX2.id, cY.id, cZ.id]).toEqual([1, 2, 3, 1]);
    await publicMessage(api, inbox2, x2.source_id, cX2.id, 'secret in inbox two');
    await publicMessage(api, inbox1, y.source_id, cY.id, 'secret of y');
    await publicMessage(api, inboxB, z.source_id, cZ.id, 'secret of z');
    select = ok(
      await a.admin.api.post(`${a.base}/conversations/${cY.id}/messages`, {
        content: 'Pick',
        content_type: 'input_select',
        content_attributes: { items: [{ title: 'a', value: 'a' }] },
      }),
      'select',
    );
    secrets = [
      y.email!,
      z.email!,
      y.source_id,
      z.source_id,
      x2.source_id,
      cX2.uuid,
      cY.uuid,
      cZ.uuid,
      'secret in inbox two',
      'secret of y',
      'secret of z',
      inbox1.hmac_token,
    ];
  });

  const expectNotFound = (res: Res, what: string) => {
    if (res.status !== 404) throw new Error(`${what}: expected 404, got ${res.status} ${res.text}`);
    const body = expectErrorBody(res, 404);
    expect(body.errors[0].code).toBe('not_found');
    for (const secret of secrets) expect(res.text, `${what} leaks ${secret}`).not.toContain(secret);
  };

  const callAll = async (calls: Call[], label: string) => {
    for (const [method, path, body] of calls) expectNotFound(await api.request(method, path, body), `${label}: ${method} ${path}`);
  };

  it('sees its own conversation (the baseline the wrong combinations differ from)', async () => {
    expect(ok(await api.get(conversationPath(inbox1, x1.source_id, cX1.id)), 'own').id).toBe(cX1.id);
    expect(ok(await api.get(conversationPath(inbox1, y.source_id, cY.id)), 'y own').messages.map((m: any) => m.content)).toEqual([
      'secret of y',
      'Pick',
    ]);
  });

  it('404s unknown, non-API and garbage inbox identifiers on every route', async () => {
    for (const inbox of ['nope', widgetToken, 'x'.repeat(300), String(inbox1.id), inbox1.inbox_identifier.toLowerCase()]) {
      expectNotFound(await api.get(inboxPath(inbox)), `inbox ${inbox}`);
      expectNotFound(await api.post(`${inboxPath(inbox)}/contacts`, { name: 'n' }), `create contact in ${inbox}`);
      await callAll(everyRoute(inbox, x1.source_id, cX1.id), `inbox ${inbox}`);
    }
    // Malformed escapes are identifiers like any other, not failed requests.
    expectNotFound(await api.get('/public/api/v1/inboxes/%zz'), 'malformed inbox escape');
    expectNotFound(await api.get(`${inboxPath(inbox1)}/contacts/%E0%A4%A/conversations`), 'malformed contact escape');
  });

  it("404s another inbox's and another account's contact identifiers", async () => {
    // X is a contact of inbox 2 too, but under another source id.
    await callAll(everyRoute(inbox2.inbox_identifier, x1.source_id, cX1.id), 'source id of inbox 1 in inbox 2');
    await callAll(everyRoute(inboxB.inbox_identifier, x1.source_id, cX1.id), 'account A source id in account B');
    await callAll(everyRoute(inbox1.inbox_identifier, z.source_id, cZ.id), 'account B source id in account A');
    for (const sourceId of ['nope', 'y'.repeat(300), `${x1.source_id} `]) {
      await callAll(everyRoute(inbox1.inbox_identifier, sourceId, cX1.id), `source ${sourceId}`);
    }
  });

  it("404s another contact's conversation, another contact inbox's conversation, and another account's conversation id", async () => {
    await callAll(conversationRoutes(inbox1.inbox_identifier, x1.source_id, cY.id, select.id), "y's conversation for x");
    await callAll(conversationRoutes(inbox1.inbox_identifier, y.source_id, cX1.id), "x's conversation for y");
    // Without identity verification a contact inbox sees only its own conversations, not the contact's others.
    await callAll(conversationRoutes(inbox1.inbox_identifier, x1.source_id, cX2.id), "x's inbox-2 conversation through inbox 1");
    // Conversation 3 exists in account A only.
    await callAll(conversationRoutes(inboxB.inbox_identifier, z.source_id, 3), 'account A conversation id in account B');
    for (const id of ['abc', '0', '-1', '1e3', '99999999999999999999']) {
      await callAll(conversationRoutes(inbox1.inbox_identifier, x1.source_id, id), `conversation ${id}`);
    }
    // A message id of another conversation.
    expectNotFound(
      await api.patch(`${conversationPath(inbox1, x1.source_id, cX1.id)}/messages/${select.id}`, { submitted_values: [{ value: 'a' }] }),
      'message of another conversation',
    );
  });

  it('lists only the contact inbox conversations, and wrong combinations changed nothing', async () => {
    const listed = ok(await api.get(`${contactPath(inbox1, x1.source_id)}/conversations`), 'x list');
    expect(listed.map((c: any) => c.id)).toEqual([cX1.id]);
    for (const secret of secrets) expect(JSON.stringify(listed)).not.toContain(secret);

    for (const [s, c, content] of [
      [a, cY, ['secret of y', 'Pick']],
      [a, cX1, []],
      [b, cZ, ['secret of z']],
    ] as const) {
      const shown = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'account show');
      expect(shown).toMatchObject({ status: 'open', contact_last_seen_at: 0 });
      const messages = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'account messages').payload;
      expect(messages.map((m: any) => m.content)).toEqual(content);
    }
    const selectNow = ok(await a.admin.api.get(`${a.base}/conversations/${cY.id}/messages`), 'select').payload.find(
      (m: any) => m.id === select.id,
    );
    expect(selectNow.content_attributes.submitted_values).toBeUndefined();
    for (const [s, id] of [
      [a, y.id],
      [a, x1.id],
      [b, z.id],
    ] as const) {
      expect(ok(await s.admin.api.get(`${s.base}/contacts/${id}`), 'contact').payload.name).not.toBe('hijacked');
    }
    // Account A has conversations 1-3 only: none was started by a wrong combination.
    expectErrorBody(await a.admin.api.get(`${a.base}/conversations/4`), 404);
    expectErrorBody(await b.admin.api.get(`${b.base}/conversations/2`), 404);
  });
});
