import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { newConversation, newInbox, ok, world, type World } from '../conversations/fixtures.ts';

// The mobile app's media view: GET conversations/{id}/attachments.
describe('conversation attachments', { timeout: 120_000 }, () => {
  let w: World;
  let other: SeededAccount;
  beforeAll(async () => {
    w = await world();
    other = await seedAccount();
  });

  it('lists every attachment of the conversation, newest first, with its message time and sender; scoped like the conversation', async () => {
    const { s } = w;
    const c = await newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id });
    const form = (files: [string, string][]) => {
      const f = new FormData();
      f.append('content', 'see files');
      for (const [name, type] of files) f.append('attachments[]', new Blob([Buffer.from(name)], { type }), name);
      return f;
    };
    const first = ok(await s.agent.api.post(`${s.base}/conversations/${c.id}/messages`, form([['a.txt', 'text/plain']])), 'first');
    ok(await s.agent.api.post(`${s.base}/conversations/${c.id}/messages`, { content: 'no files' }), 'plain');
    const second = ok(
      await s.admin.api.post(
        `${s.base}/conversations/${c.id}/messages`,
        form([
          ['b.png', 'image/png'],
          ['c.txt', 'text/plain'],
        ]),
      ),
      'second',
    );

    const res = await s.agent.api.get(`${s.base}/conversations/${c.id}/attachments`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total_count: 3 });
    const payload = res.body.payload as Record<string, any>[];
    expect(payload.map((a) => a.message_id)).toEqual([second.id, second.id, first.id]);
    expect(payload[0]).toMatchObject({
      id: expect.any(Number),
      message_id: second.id,
      file_type: expect.any(String),
      account_id: s.accountId,
      data_url: expect.stringMatching(/^http/),
      created_at: second.created_at,
      sender: { id: s.admin.id, type: 'user' },
    });
    expect(payload[2]).toMatchObject({ message_id: first.id, sender: { id: s.agent.id } });
    expect((await s.agent.api.get(`${s.base}/conversations/${c.id}/attachments?page=2`)).body).toEqual({
      meta: { total_count: 3 },
      payload: [],
    });

    // An agent outside the inbox, another account, an absent conversation: 404.
    const hidden = await newInbox(s);
    const secret = await newConversation(s, { inbox_id: hidden.id, contact_id: w.contact.id });
    expectErrorBody(await s.agent.api.get(`${s.base}/conversations/${secret.id}/attachments`), 404);
    expect((await s.admin.api.get(`${s.base}/conversations/${secret.id}/attachments`)).body).toEqual({
      meta: { total_count: 0 },
      payload: [],
    });
    expectErrorBody(await other.admin.api.get(`${other.base}/conversations/${c.id}/attachments`), 404);
    expectErrorBody(await s.agent.api.get(`${s.base}/conversations/999999/attachments`), 404);
  });
});
