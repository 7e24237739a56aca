import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { put, type TxItem } from '../transact.ts';
import type { MessageRecord, MessageStatus } from '#shared/model/messages.ts';
import { getItem, getItemNow, getMany, queryItems, record } from './common.ts';

// Access patterns of messages (AP70-AP80). Messages live in their conversation's partition.

export const messageItem = (m: MessageRecord) => ({
  ...keys.message(m.account_id, m.conversation_id, m.id),
  type: 'message',
  ...m,
});

/** A message in a conversation's transaction (its edits are ordered by the conversation's version, not by `updated_at`). */
export const putMessage = (m: MessageRecord, opts: { ifNew?: boolean } = {}): TxItem => ({
  item: put(messageItem(m), { ifNew: opts.ifNew }),
});

/** A changed message on its own (a message the conversation does not show a copy of). */
export async function writeMessage(m: MessageRecord): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: messageItem(m) }));
}

/** What AP80 changes of a message: some of its fields, and single keys of its `content_attributes`. */
export interface MessageFieldChange {
  set: Partial<Pick<MessageRecord, 'status' | 'source_id' | 'content_attributes' | 'updated_at'>>;
  /** `send_claim` removed. */
  releaseClaim?: boolean;
  /** Keys of `content_attributes` set (a status's `external_error`). */
  setAttributes?: Record<string, unknown>;
  /** Keys of `content_attributes` removed. */
  removeAttributes?: string[];
  /** Applied only while the message's status is one of these. */
  ifStatusIn?: MessageStatus[];
}

/**
 * AP80: changes some fields of a stored message in place (UpdateItem), only while its status is one of
 * `ifStatusIn`, so writers that race (a provider's status, the send's outcome, a retry) never undo one another:
 * each touches its own fields, and a status moves only from the statuses it may move from. The message as stored
 * after the change, or undefined when it is gone or its status did not allow the change.
 */
export async function updateMessageFields(
  ref: Pick<MessageRecord, 'account_id' | 'conversation_id' | 'id'>,
  change: MessageFieldChange,
): Promise<MessageRecord | undefined> {
  // No status a change may be made from (a provider's `sent`: every message starts there): nothing to write.
  if (change.ifStatusIn && !change.ifStatusIn.length) return undefined;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  let n = 0;
  for (const [field, value] of Object.entries(change.set)) {
    names[`#f${n}`] = field;
    values[`:f${n}`] = value;
    sets.push(`#f${n} = :f${n}`);
    n++;
  }
  if (change.setAttributes || change.removeAttributes) names['#ca'] = 'content_attributes';
  for (const [key, value] of Object.entries(change.setAttributes ?? {})) {
    names[`#a${n}`] = key;
    values[`:a${n}`] = value;
    sets.push(`#ca.#a${n} = :a${n}`);
    n++;
  }
  for (const key of change.removeAttributes ?? []) {
    names[`#a${n}`] = key;
    removes.push(`#ca.#a${n}`);
    n++;
  }
  if (change.releaseClaim) removes.push('send_claim');
  const conditions = ['attribute_exists(pk)'];
  if (change.ifStatusIn) {
    names['#st'] = 'status';
    conditions.push(
      `#st IN (${change.ifStatusIn.map((s, i) => {
        values[`:s${i}`] = s;
        return `:s${i}`;
      })})`,
    );
  }
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.message(ref.account_id, ref.conversation_id, ref.id),
        UpdateExpression: [sets.length ? `SET ${sets.join(', ')}` : '', removes.length ? `REMOVE ${removes.join(', ')}` : '']
          .filter(Boolean)
          .join(' '),
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: Object.keys(values).length ? values : undefined,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return record<MessageRecord>(out.Attributes);
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}

/** AP70: one message of a conversation (`consistent`: as the table holds it now, never from a read cache). */
export const getMessage = (accountId: number, displayId: number, messageId: number, consistent = false) =>
  consistent
    ? getItemNow<MessageRecord>(keys.message(accountId, displayId, messageId))
    : getItem<MessageRecord>(keys.message(accountId, displayId, messageId));

/** AP70 in one BatchGet: messages by (conversation display id, message id), in the order asked. */
export const getMessages = (accountId: number, refs: { conversation_id: number; id: number }[]) =>
  getMany<MessageRecord>(refs.map((r) => keys.message(accountId, r.conversation_id, r.id)));

export interface MessageWindow {
  /** Only ids below this one. */
  before?: number;
  /** Only ids above this one (or from it, with `afterInclusive`: Chatwoot's `before`+`after` window). */
  after?: number;
  afterInclusive?: boolean;
  limit: number;
}

/**
 * AP71: messages of a conversation by id window, ascending. Without `after` it reads the newest
 * `limit` below `before`; with `after` the oldest `limit` above it.
 */
export async function listMessages(accountId: number, displayId: number, w: MessageWindow): Promise<MessageRecord[]> {
  const p = keys.messagesPrefix(accountId, displayId);
  const lo = w.after !== undefined ? keys.messageSk(w.afterInclusive ? w.after : w.after + 1) : p.skPrefix;
  const hi = w.before !== undefined ? keys.messageSk(w.before - 1) : `${p.skPrefix}\uffff`;
  const forward = w.after !== undefined;
  const out = (
    await queryItems(
      {
        KeyConditionExpression: 'pk = :p AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: { ':p': p.pk, ':lo': lo, ':hi': hi },
        ScanIndexForward: forward,
      },
      w.limit,
    )
  ).map((item) => record<MessageRecord>(item)!);
  return forward ? out : out.reverse();
}

/**
 * AP78: the messages of a conversation sent by a contact now carry another contact as sender (a merge).
 * Reads the conversation's messages, rewrites those of `fromContactId` conditioned on that sender, so it
 * can run again (a message already moved is left alone). Returns how many moved.
 */
export async function reassignContactMessages(
  accountId: number,
  displayId: number,
  fromContactId: number,
  toContactId: number,
): Promise<number> {
  const p = keys.messagesPrefix(accountId, displayId);
  let moved = 0;
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        FilterExpression: 'sender_type = :t AND sender_id = :from',
        ProjectionExpression: 'pk, sk',
        ExpressionAttributeValues: { ':p': p.pk, ':s': p.skPrefix, ':t': 'Contact', ':from': fromContactId },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      try {
        await db().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET sender_id = :to',
            ConditionExpression: 'sender_type = :t AND sender_id = :from',
            ExpressionAttributeValues: { ':t': 'Contact', ':from': fromContactId, ':to': toContactId },
          }),
        );
        moved++;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return moved;
}
