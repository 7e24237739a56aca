import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import { keys } from '../keys.ts';
import { put, type TxItem } from '../transact.ts';
import type { MessageRecord } from '#shared/model/messages.ts';
import { getItem, getMany, queryItems, record } from './common.ts';

// Access patterns of messages (AP70-AP79). Messages live in their conversation's partition.

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

/** AP70: one message of a conversation. */
export const getMessage = (accountId: number, displayId: number, messageId: number) =>
  getItem<MessageRecord>(keys.message(accountId, displayId, messageId));

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
