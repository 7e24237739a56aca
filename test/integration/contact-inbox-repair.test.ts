import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { findContactInbox } from '#shared/db/repositories/contacts.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../support/runtime.ts';
import { ok } from '../e2e/conversations/fixtures.ts';
import { apiInbox, type ApiInbox } from '../e2e/public/fixtures.ts';

// A new contact inbox is two plain writes, the source-id sentinel first: a crash after the sentinel leaves
// it naming a contact without its contact inbox. The next claim of that source id repairs it — by the same
// contact (the missing item is written) or by another one (the sentinel is taken over) — and a source id
// whose contact inbox exists stays taken.

describe('contact inbox written without a transaction', () => {
  let s: SeededAccount;
  let inbox: ApiInbox;
  const post = async (path: string, body: unknown) => s.admin.api.post(`${s.base}${path}`, body);
  const newContactId = async () => ok(await post('/contacts', { name: unique('Repair ') }), 'contact').payload.contact.id as number;
  /** What a crash between the two writes leaves: the sentinel alone. */
  const crashedClaim = (contactId: number, sourceId: string) =>
    db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.sourceIdUnique(inbox.id, sourceId), type: 'unique', account_id: s.accountId, contact_id: contactId },
      }),
    );

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    inbox = await apiInbox(s);
  });

  it('the same contact claiming the source id again writes the missing contact inbox', async () => {
    const contactId = await newContactId();
    const sourceId = unique('src-');
    await crashedClaim(contactId, sourceId);
    expect(await findContactInbox(inbox.id, sourceId)).toBeUndefined();
    const c = ok(
      await post('/conversations', { inbox_id: inbox.id, contact_id: contactId, source_id: sourceId, message: { content: 'hello' } }),
      'conversation',
    );
    expect(c).toMatchObject({ inbox_id: inbox.id, meta: { sender: { id: contactId } } });
    expect(await findContactInbox(inbox.id, sourceId)).toMatchObject({
      contact_id: contactId,
      inbox_id: inbox.id,
      source_id: sourceId,
      account_id: s.accountId,
    });
    const shown = ok(await s.admin.api.get(`${s.base}/contacts/${contactId}`), 'show').payload.contact_inboxes as { source_id: string }[];
    expect(shown.map((x) => x.source_id)).toContain(sourceId);
  });

  it('another contact takes over a sentinel left without its contact inbox', async () => {
    const [crashed, other] = [await newContactId(), await newContactId()];
    const sourceId = unique('src-');
    await crashedClaim(crashed, sourceId);
    ok(await post(`/contacts/${other}/contact_inboxes`, { inbox_id: inbox.id, source_id: sourceId }), 'take over');
    expect(await findContactInbox(inbox.id, sourceId)).toMatchObject({ contact_id: other });
  });

  it('a source id left by a contact deleted while its contact inbox was written is taken over', async () => {
    const gone = 900_000_000 + Math.floor(Math.random() * 1e6);
    const sourceId = unique('src-');
    await crashedClaim(gone, sourceId);
    const orphan = {
      account_id: s.accountId,
      contact_id: gone,
      inbox_id: inbox.id,
      source_id: sourceId,
      id: gone,
      pubsub_token: unique('pt'),
      hmac_verified: false,
      created_at: 1,
      updated_at: 1,
    };
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.contactInbox(s.accountId, gone, inbox.id, sourceId), type: 'contact_inbox', ...orphan },
      }),
    );
    expect(await findContactInbox(inbox.id, sourceId)).toMatchObject({ contact_id: gone });
    const other = await newContactId();
    ok(await post(`/contacts/${other}/contact_inboxes`, { inbox_id: inbox.id, source_id: sourceId }), 'take over');
    expect(await findContactInbox(inbox.id, sourceId)).toMatchObject({ contact_id: other, source_id: sourceId });
  });

  it('a source id with its contact inbox stays taken for another contact, and one contact claiming it twice at once stores one', async () => {
    const [owner, other] = [await newContactId(), await newContactId()];
    const sourceId = unique('src-');
    const twice = await Promise.all(
      [1, 2].map(() => post(`/contacts/${owner}/contact_inboxes`, { inbox_id: inbox.id, source_id: sourceId })),
    );
    expect(twice.map((r) => r.status)).toEqual([200, 200]);
    const stored = await findContactInbox(inbox.id, sourceId);
    expect(stored).toMatchObject({ contact_id: owner });
    const refused = await post(`/contacts/${other}/contact_inboxes`, { inbox_id: inbox.id, source_id: sourceId });
    expect(refused.status).toBe(422);
    expect(await findContactInbox(inbox.id, sourceId)).toMatchObject({ contact_id: owner, pubsub_token: stored!.pubsub_token });
  });
});
