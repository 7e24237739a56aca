import { createHash } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { getItem, queryPrefix, record } from './common.ts';

// Access patterns of the email channel (docs/data-model.md#keys-and-access-patterns, AP310-313, AP315-316): the items
// that thread a mail into its conversation, and each IMAP inbox's polling state. Thread items live in the
// conversation's partition (its purge removes them) and are found through gsi1.

export interface ThreadTarget {
  account_id: number;
  /** The conversation's display id. */
  conversation_id: number;
  inbox_id: number;
}

export const messageIdHash = (id: string) => createHash('sha256').update(id.trim().replace(/^<|>$/g, ''), 'utf8').digest('hex');

const firstOf = async <T>(partition: { gsi1pk: string }) => record<T>((await queryPrefix(partition, 'THREAD', { limit: 1 }))[0]);

/** AP310: the conversation a `reply+<uuid>` address or one of our Message-IDs names. */
export const findThreadByUuid = (uuid: string) => firstOf<ThreadTarget>({ gsi1pk: keys.mailThreadIndex(uuid).gsi1pk });

/** AP311: remembers that mail concerns this conversation (idempotent). */
export async function putThread(uuid: string, t: ThreadTarget): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.mailThread(t.account_id, t.conversation_id), ...keys.mailThreadIndex(uuid), type: 'mail_thread', uuid, ...t },
    }),
  );
}

/** AP312: the conversation of an inbox that holds the mail with this Message-ID (or began with it as its In-Reply-To). */
export const findReference = (inboxId: number, messageId: string) =>
  firstOf<ThreadTarget>({ gsi1pk: keys.mailReferenceIndex(inboxId, messageIdHash(messageId)).gsi1pk });

/**
 * AP313: records that a conversation began with a mail replying to this Message-ID (Chatwoot's last try before a
 * new conversation: another mail replying to the same one joins it); false when it is recorded already.
 */
export async function putReference(messageId: string, r: ThreadTarget): Promise<boolean> {
  const hash = messageIdHash(messageId);
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.mailReference(r.account_id, r.conversation_id, hash),
          ...keys.mailReferenceIndex(r.inbox_id, hash),
          type: 'mail_reference',
          ...r,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

export interface ImapState {
  uid_validity: string;
  last_uid: number;
  /** Until when (ms) a poll holds the inbox. */
  lease_until?: number;
}

/** AP315: an IMAP inbox's polling state. */
export const getImapState = (accountId: number, inboxId: number) => getItem<ImapState>(keys.imapState(accountId, inboxId), true);

/** AP316: takes the inbox's poll lease for `ms`; false when another poll holds it. */
export async function takeImapLease(accountId: number, inboxId: number, ms: number): Promise<boolean> {
  const now = Date.now();
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.imapState(accountId, inboxId),
        UpdateExpression: 'SET lease_until = :until, #t = :type',
        ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':until': now + ms, ':now': now, ':type': 'imap_state' },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** AP316: the last UID imported (within a UIDVALIDITY), and the lease given back. */
export async function saveImapProgress(accountId: number, inboxId: number, uidValidity: string, lastUid: number): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.imapState(accountId, inboxId),
      UpdateExpression: 'SET uid_validity = :v, last_uid = :u REMOVE lease_until',
      ExpressionAttributeValues: { ':v': uidValidity, ':u': lastUid },
    }),
  );
}
