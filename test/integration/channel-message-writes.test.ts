import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { recordProviderMessage } from '#shared/db/repositories/channels.ts';
import { getConversation } from '#shared/db/repositories/conversations.ts';
import { getInbox } from '#shared/db/repositories/inboxes.ts';
import { getMessage } from '#shared/db/repositories/messages.ts';
import { recordSent, refOf } from '#shared/domain/channels/send.ts';
import { applyProviderStatus } from '#shared/domain/channels/status.ts';
import type { InboxRecord } from '#shared/model/inboxes.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { runtime, seedAccount, unique, type SeededAccount } from '../support/runtime.ts';

// The writes a send's outcome and a provider's status make on one message, against DynamoDB Local, with the other
// write made exactly between a writer's first access to the message and the rest of its work: neither undoes the
// other (docs/channels.md#statuses).

const text = (v: { S?: string } | string | undefined) => (typeof v === 'string' ? v : v?.S);

/** Runs `between` once, right after the first DynamoDB command on the message item (a read or a write) completes. */
function afterFirstAccess(m: MessageRecord, between: () => Promise<unknown>): { ran: () => boolean } {
  const target = keys.message(m.account_id, m.conversation_id, m.id);
  const name = unique('between-');
  let ran = false;
  db().middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      const key = (args.input as { Key?: Record<string, { S?: string } | string> }).Key;
      if (!ran && key && text(key.pk) === target.pk && text(key.sk) === target.sk) {
        ran = true;
        db().middlewareStack.remove(name);
        await between();
      }
      return out;
    },
    { step: 'build', name },
  );
  return { ran: () => ran };
}

describe('a message written by its send outcome and a provider status at once', () => {
  let s: SeededAccount;
  let inbox: InboxRecord;

  beforeAll(async () => {
    await runtime();
    s = await seedAccount();
    const res = await s.admin.api.post(`${s.base}/inboxes`, { name: unique('api-'), channel: { type: 'api' } });
    expect(res.status).toBe(200);
    inbox = (await getInbox(s.accountId, res.body.id, true))!;
  }, 60_000);

  /** A conversation whose last message is an outgoing one, as stored. */
  async function outgoing(): Promise<MessageRecord> {
    const contact = await s.admin.api.post(`${s.base}/contacts`, { name: unique('c-'), inbox_id: inbox.id });
    expect(contact.status).toBe(200);
    const conv = await s.admin.api.post(`${s.base}/conversations`, {
      inbox_id: inbox.id,
      contact_id: contact.body.payload.contact.id,
    });
    expect(conv.status).toBe(200);
    const msg = await s.admin.api.post(`${s.base}/conversations/${conv.body.id}/messages`, { content: 'hello' });
    expect(msg.status).toBe(200);
    const m = await getMessage(s.accountId, conv.body.id, msg.body.id, true);
    expect(m).toMatchObject({ status: 'sent', source_id: null });
    return m!;
  }

  async function expectBoth(m: MessageRecord, sourceId: string) {
    const stored = await getMessage(m.account_id, m.conversation_id, m.id, true);
    expect(stored).toMatchObject({ status: 'read', source_id: sourceId });
    expect(stored?.send_claim).toBeUndefined();
    const c = await getConversation(m.account_id, m.conversation_id, true);
    expect(c?.last_message).toMatchObject({ id: m.id, status: 'read', source_id: sourceId });
  }

  it('a read status landing inside recordSent stays read, and the source id is kept', async () => {
    const m = await outgoing();
    const sourceId = unique('wamid.');
    await recordProviderMessage(inbox.id, sourceId, refOf(m));
    const hook = afterFirstAccess(m, () => applyProviderStatus(inbox, { providerId: sourceId, status: 'read' }));
    await recordSent(m, { sourceId });
    expect(hook.ran()).toBe(true);
    await expectBoth(m, sourceId);
  });

  it('recordSent landing inside a read status keeps both: the status is not lost and neither is the source id', async () => {
    const m = await outgoing();
    const sourceId = unique('wamid.');
    await recordProviderMessage(inbox.id, sourceId, refOf(m));
    const hook = afterFirstAccess(m, () => recordSent(m, { sourceId }));
    expect(await applyProviderStatus(inbox, { providerId: sourceId, status: 'read' })).toBe('applied');
    expect(hook.ran()).toBe(true);
    await expectBoth(m, sourceId);
  });

  it('a late delivered landing inside a read status does not take the message back', async () => {
    const m = await outgoing();
    const sourceId = unique('wamid.');
    await recordSent(m, { sourceId });
    const hook = afterFirstAccess(m, () => applyProviderStatus(inbox, { providerId: sourceId, status: 'delivered' }));
    await applyProviderStatus(inbox, { providerId: sourceId, status: 'read' });
    expect(hook.ran()).toBe(true);
    await expectBoth(m, sourceId);
    expect(await applyProviderStatus(inbox, { providerId: sourceId, status: 'delivered' })).toBe('unchanged');
    // `sent` moves no message (each starts there): nothing is written.
    expect(await applyProviderStatus(inbox, { providerId: sourceId, status: 'sent' })).toBe('unchanged');
    expect(await applyProviderStatus(inbox, { providerId: unique('wamid.none.'), status: 'read' })).toBe('unknown');
  });
});
