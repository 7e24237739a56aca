import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_MULTIPART_BODY_BYTES } from '#shared/http/body.ts';
import { expectErrorBody, seedAccount, type SeededAccount } from '../../support/runtime.ts';
import { streamChanges } from '../../support/stream.ts';
import { expectMessageShape, newBot, newConversation, newInbox, ok, world, type World } from '../conversations/fixtures.ts';

// Messages (docs/chatwoot.md#messages): list with before/after cursors, create (outgoing, incoming on API inboxes,
// private notes, content types), status updates on API inboxes, soft delete.

describe('messages', () => {
  let w: World;
  let s: SeededAccount;
  let other: SeededAccount;

  beforeAll(async () => {
    w = await world();
    s = w.s;
    other = await seedAccount();
  });

  const conversation = (body: Record<string, unknown> = {}) =>
    newConversation(s, { inbox_id: w.inbox.id, contact_id: w.contact.id, ...body });
  const post = (id: number, body: unknown, api = s.admin.api) => api.post(`${s.base}/conversations/${id}/messages`, body);

  it('creates an outgoing message by default, with the caller as sender and echo_id echoed once', async () => {
    const c = await conversation();
    const m = ok(await post(c.id, { content: 'Hi {{contact.name}}, `{{raw}}` from {{agent.name}}', echo_id: 'e-1' }), 'create');
    expectMessageShape(m);
    expect(m).toMatchObject({
      conversation_id: c.id,
      inbox_id: w.inbox.id,
      account_id: s.accountId,
      message_type: 1,
      content_type: 'text',
      status: 'sent',
      private: false,
      source_id: null,
      echo_id: 'e-1',
      sender: { id: s.admin.id, type: 'user' },
    });
    expect(m.content.startsWith(`Hi ${w.contact.name}, \`{{raw}}\` from administrator acct-`)).toBe(true);
    const listed = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'list').payload;
    expect(listed[0].echo_id).toBeUndefined();
    expect(listed[0].id).toBe(m.id);
  });

  it('creates incoming messages on API inboxes from the contact; refuses them elsewhere (422)', async () => {
    const c = await conversation();
    const m = ok(await post(c.id, { content: 'help!', message_type: 'incoming', source_id: 'ext-1' }), 'incoming');
    expect(m).toMatchObject({ message_type: 0, source_id: 'ext-1', sender: { id: w.contact.id, type: 'contact' } });
    const shown = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show');
    expect(shown.unread_count).toBe(1);
    expect(shown.messages[0].id).toBe(m.id);
    const widget = await newInbox(s, { type: 'web_widget', website_url: 'https://example.com' });
    const wc = await newConversation(s, { inbox_id: widget.id, contact_id: w.contact.id });
    const refused = expectErrorBody(await post(wc.id, { content: 'x', message_type: 'incoming' }), 422);
    expect(refused.errors[0].field).toBe('message_type');
  });

  it('reopens a resolved or snoozed conversation on an incoming message', async () => {
    const c = await conversation({ status: 'resolved' });
    ok(await post(c.id, { content: 'back again', message_type: 'incoming' }), 'incoming');
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').status).toBe('open');
    const snoozed = await conversation({ status: 'snoozed' });
    ok(await post(snoozed.id, { content: 'wake up', message_type: 'incoming' }), 'incoming');
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${snoozed.id}`), 'show')).toMatchObject({
      status: 'open',
      snoozed_until: null,
    });
    // Outgoing replies do not.
    const quiet = await conversation({ status: 'resolved' });
    ok(await post(quiet.id, { content: 'we replied' }), 'outgoing');
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${quiet.id}`), 'show').status).toBe('resolved');
  });

  it('takes private notes, form-encoded bodies and content types with checked content_attributes', async () => {
    const c = await conversation();
    expect(ok(await post(c.id, { content: 'note to self', private: true }), 'note')).toMatchObject({ private: true, message_type: 1 });
    const form = await s.admin.api.post(`${s.base}/conversations/${c.id}/messages`, 'content=form+hello&private=true', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(ok(form, 'form')).toMatchObject({ content: 'form hello', private: true });
    const select = ok(
      await post(c.id, {
        content: 'Pick one',
        content_type: 'input_select',
        content_attributes: {
          items: [
            { title: 'A', value: 'a' },
            { title: 'B', value: 'b' },
          ],
        },
      }),
      'select',
    );
    expect(select).toMatchObject({
      content_type: 'input_select',
      content_attributes: {
        items: [
          { title: 'A', value: 'a' },
          { title: 'B', value: 'b' },
        ],
      },
    });
    const asString = ok(
      await post(c.id, {
        content: 'card',
        content_type: 'cards',
        content_attributes: JSON.stringify({ items: [{ title: 'T', actions: [{ text: 'go', type: 'link', uri: 'https://x.y' }] }] }),
      }),
      'cards',
    );
    expect(asString.content_attributes.items[0].title).toBe('T');
    const cases: [Record<string, unknown>, string][] = [
      [{ content: 'x', content_type: 'input_select', content_attributes: {} }, 'content_attributes'],
      [
        { content: 'x', content_type: 'input_select', content_attributes: { items: [{ title: 'A', colour: 'red' }] } },
        'content_attributes',
      ],
      [{ content: 'x', content_type: 'cards', content_attributes: { items: [{ title: 'no actions' }] } }, 'content_attributes'],
      [{ content: 'x', content_type: 'hologram' }, 'content_type'],
      [{ content: 'x', message_type: 'shout' }, 'message_type'],
      [{ content: 'x'.repeat(150_001) }, 'content'],
      [{}, 'content'],
    ];
    for (const [body, field] of cases) {
      expect(expectErrorBody(await post(c.id, body), 422).errors[0].field, JSON.stringify(body).slice(0, 80)).toBe(field);
    }
  });

  it('takes attachments as multipart attachments[] (content optional then)', async () => {
    const c = await conversation();
    const form = new FormData();
    form.append('private', 'true');
    form.append('attachments[]', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'note.txt');
    form.append('attachments[]', new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'pic.png');
    const m = ok(await post(c.id, form), 'multipart');
    expect(m).toMatchObject({ content: null, private: true, message_type: 1 });
    expect(m.attachments).toEqual([
      expect.objectContaining({
        message_id: m.id,
        account_id: s.accountId,
        file_type: 'file',
        extension: 'txt',
        file_size: 5,
        data_url: expect.any(String),
      }),
      expect.objectContaining({ message_id: m.id, file_type: 'image', extension: 'png', file_size: 4, thumb_url: expect.any(String) }),
    ]);
    const listed = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'list').payload;
    expect(listed[0].attachments).toHaveLength(2);
    // data_url is an application URL that leads to the stored file.
    expect(await (await fetch(m.attachments[0].data_url)).text()).toBe('hello');
    const many = new FormData();
    for (let i = 0; i < 16; i++) many.append('attachments[]', new Blob(['x'], { type: 'text/plain' }), `f${i}.txt`);
    expect(expectErrorBody(await post(c.id, many), 422).errors[0].field).toBe('attachments');
  });

  it('takes a 4 MiB file in multipart (EvolutionAPI media) and refuses a body above the deployed limit with 413 naming it', async () => {
    const c = await conversation();
    const big = Buffer.alloc(4 * 1024 * 1024, 0x61);
    big.write('start', 0);
    big.write('end', big.length - 3);
    const form = new FormData();
    form.append('content', 'a large file');
    form.append('message_type', 'outgoing');
    form.append('attachments[]', new Blob([big], { type: 'video/mp4' }), 'clip.mp4');
    const m = ok(await post(c.id, form), 'multipart 4 MiB');
    expect(m.attachments).toEqual([expect.objectContaining({ file_type: 'video', extension: 'mp4', file_size: big.length })]);
    const served = Buffer.from(await (await fetch(m.attachments[0].data_url)).arrayBuffer());
    expect(served.length).toBe(big.length);
    expect(served.equals(big)).toBe(true);

    const tooBig = new FormData();
    tooBig.append('attachments[]', new Blob([Buffer.alloc(MAX_MULTIPART_BODY_BYTES, 0x62)], { type: 'video/mp4' }), 'huge.mp4');
    const refused = expectErrorBody(await post(c.id, tooBig), 413);
    expect(refused.description).toContain(String(MAX_MULTIPART_BODY_BYTES));
    // A JSON body keeps the ordinary limit.
    expectErrorBody(await post(c.id, { content: 'x'.repeat(1024 * 1024 + 10) }), 413);
  });

  it('direct uploads: up to 40 MB straight to storage, attached by signed_id to the conversation it was made for', async () => {
    const c = await conversation();
    const file = Buffer.alloc(6 * 1024 * 1024, 0x63);
    const checksum = createHash('md5').update(file).digest('base64');
    const path = `${s.base}/conversations/${c.id}/direct_uploads`;
    const blob = ok(
      await s.admin.api.post(path, { blob: { filename: 'scan.pdf', byte_size: file.length, checksum, content_type: 'application/pdf' } }),
      'direct upload',
    );
    expect(blob).toMatchObject({
      filename: 'scan.pdf',
      byte_size: file.length,
      checksum,
      content_type: 'application/pdf',
      signed_id: expect.any(String),
      direct_upload: { url: expect.stringMatching(/^http/), headers: { 'Content-Type': 'application/pdf', 'Content-MD5': checksum } },
    });
    const put = await fetch(blob.direct_upload.url, { method: 'PUT', headers: blob.direct_upload.headers, body: file });
    expect(put.status).toBe(200);
    const m = ok(await post(c.id, { content: 'the scan', attachments: [blob.signed_id] }), 'message with a direct upload');
    expect(m.attachments).toEqual([
      expect.objectContaining({ file_type: 'file', extension: 'pdf', file_size: file.length, data_url: expect.stringMatching(/^http/) }),
    ]);
    const served = Buffer.from(await (await fetch(m.attachments[0].data_url)).arrayBuffer());
    expect(createHash('md5').update(served).digest('base64')).toBe(checksum);

    // Only where it was made for: another conversation, another account, a forged id, an unstored blob.
    const elsewhere = await conversation();
    expect(expectErrorBody(await post(elsewhere.id, { content: 'x', attachments: [blob.signed_id] }), 422).errors[0].field).toBe(
      'attachments',
    );
    expect(expectErrorBody(await post(c.id, { content: 'x', attachments: ['forged'] }), 422).errors[0].field).toBe('attachments');
    const unstored = ok(
      await s.admin.api.post(path, { blob: { filename: 'a.txt', byte_size: 3, content_type: 'text/plain' } }),
      'unstored',
    );
    expectErrorBody(await post(c.id, { content: 'x', attachments: [unstored.signed_id] }), 422);
    expectErrorBody(
      await other.admin.api.post(`${other.base}/conversations/${c.id}/direct_uploads`, { blob: { filename: 'a', byte_size: 1 } }),
      404,
    );
    expect(
      expectErrorBody(await s.admin.api.post(path, { blob: { filename: 'big.bin', byte_size: 40 * 1024 * 1024 + 1 } }), 422).errors[0]
        .field,
    ).toBe('byte_size');
    expect(
      expectErrorBody(await s.admin.api.post(path, { blob: { filename: 'a', byte_size: 1, checksum: 'nope' } }), 422).errors[0].field,
    ).toBe('checksum');
  });

  it('lets an agent bot post, as the bot or as a named bot of the account', async () => {
    const bot = await newBot(s);
    const c = await conversation();
    const m = ok(await post(c.id, { content: 'beep' }, bot.api), 'bot message');
    expect(m).toMatchObject({ message_type: 1, sender_type: 'AgentBot', sender_id: bot.id, sender: { id: bot.id, type: 'agent_bot' } });
    const named = ok(await post(c.id, { content: 'as bot', sender_type: 'AgentBot', sender_id: bot.id }), 'named');
    expect(named.sender).toMatchObject({ id: bot.id, type: 'agent_bot' });
    expectErrorBody(await bot.api.get(`${s.base}/conversations/${c.id}/messages`), 403);
  });

  it('lists the latest 20 ascending, 20 before a cursor, up to 100 after one, and a window with both', async () => {
    const c = await conversation();
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) ids.push(ok(await post(c.id, { content: `m${i}` }), 'm').id);
    const list = async (q: string) => ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages${q}`), q);
    const latest = await list('');
    expect(latest.payload.map((m: any) => m.id)).toEqual(ids.slice(5));
    latest.payload.forEach(expectMessageShape);
    expect(latest.meta).toMatchObject({ labels: [], additional_attributes: {}, contact: { id: w.contact.id, type: 'contact' } });
    expect('agent_last_seen_at' in latest.meta).toBe(true);
    expect((await list(`?before=${ids[5]}`)).payload.map((m: any) => m.id)).toEqual(ids.slice(0, 5));
    expect((await list(`?after=${ids[20]}`)).payload.map((m: any) => m.id)).toEqual(ids.slice(21));
    expect((await list(`?after=${ids[3]}&before=${ids[6]}`)).payload.map((m: any) => m.id)).toEqual(ids.slice(3, 6));
    expect(expectErrorBody(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages?before=x`), 422).errors[0].field).toBe('before');
    ok(await post(c.id, { content: 'private', private: true }), 'note');
    const filtered = await list('?filter_internal_messages=true');
    expect(filtered.payload.every((m: any) => !m.private && m.message_type !== 2)).toBe(true);
  });

  it('updates delivery status on API inboxes only (403 elsewhere); read does not go back to delivered', async () => {
    const c = await conversation();
    const m = ok(await post(c.id, { content: 'tracked' }), 'm');
    const url = `${s.base}/conversations/${c.id}/messages/${m.id}`;
    expect(ok(await s.admin.api.patch(url, { status: 'delivered' }), 'delivered').status).toBe('delivered');
    expect(ok(await s.admin.api.patch(url, { status: 'read' }), 'read').status).toBe('read');
    expect(ok(await s.admin.api.patch(url, { status: 'delivered' }), 'back').status).toBe('read');
    const failed = ok(await s.admin.api.put(url, { status: 'failed', external_error: 'bounced' }), 'failed');
    expect(failed).toMatchObject({ status: 'failed', content_attributes: { external_error: 'bounced' } });
    expect(ok(await s.admin.api.get(`${s.base}/conversations/${c.id}`), 'show').messages[0]).toMatchObject({ id: m.id, status: 'failed' });
    expect(expectErrorBody(await s.admin.api.patch(url, { status: 'lost' }), 422).errors[0].field).toBe('status');
    expectErrorBody(await s.admin.api.patch(`${s.base}/conversations/${c.id}/messages/99999999`, { status: 'read' }), 404);
    const widget = await newInbox(s, { type: 'web_widget', website_url: 'https://example.com' });
    const wc = await newConversation(s, { inbox_id: widget.id, contact_id: w.contact.id, message: { content: 'hey' } });
    expectErrorBody(await s.admin.api.patch(`${s.base}/conversations/${wc.id}/messages/${wc.messages[0].id}`, { status: 'read' }), 403);
  });

  it('soft-deletes a message and announces the change on the stream', async () => {
    const c = await conversation();
    const m = ok(
      await post(c.id, { content: 'oops', content_type: 'input_select', content_attributes: { items: [{ title: 'a', value: 'a' }] } }),
      'm',
    );
    const res = ok(await s.agent.api.delete(`${s.base}/conversations/${c.id}/messages/${m.id}`), 'delete');
    expect(res).toMatchObject({
      id: m.id,
      content: 'This message was deleted',
      content_type: 'text',
      content_attributes: { deleted: true },
    });
    const listed = ok(await s.admin.api.get(`${s.base}/conversations/${c.id}/messages`), 'list').payload;
    expect(listed.find((x: any) => x.id === m.id).content).toBe('This message was deleted');
    const changes = await streamChanges((ch) => ch.type === 'message' && ch.newImage?.id === m.id);
    expect(changes.map((ch) => ch.action)).toEqual(['INSERT', 'MODIFY']);
    expect(changes[1].oldImage).toMatchObject({ content: 'oops' });
    expect(changes[1].newImage).toMatchObject({ content: 'This message was deleted', performed_by: { type: 'user', id: s.agent.id } });
    expectErrorBody(await other.admin.api.delete(`${s.base}/conversations/${c.id}/messages/${m.id}`), 404);
  });

  it('keeps messages to their conversation: another conversation’s message id is 404', async () => {
    const a = await conversation({ message: { content: 'in a' } });
    const b = await conversation();
    expectErrorBody(await s.admin.api.delete(`${s.base}/conversations/${b.id}/messages/${a.messages[0].id}`), 404);
    expectErrorBody(await s.admin.api.patch(`${s.base}/conversations/${b.id}/messages/${a.messages[0].id}`, { status: 'read' }), 404);
  });
});
