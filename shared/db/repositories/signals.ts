import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { SignalRecord } from '#shared/model/signals.ts';

const SIGNAL_LIFETIME_SECONDS = 24 * 3600;

/** Time-ordered, so signals of one partition sort in the order they were raised. */
const signalId = () => `${Date.now().toString(36).padStart(10, '0')}${randomBytes(6).toString('hex')}`;

type NewSignal = Omit<SignalRecord, 'created_at'>;

/** Raises a signal of a conversation in its partition, so it stays in order with its messages. */
export const emitConversationSignal = (signal: NewSignal & { conversation_id: number }) =>
  emitSignal(keys.conversation(signal.account_id, signal.conversation_id).pk, signal);

/** Raises a signal about a contact in the contact's partition (with or without a conversation). */
export const emitContactSignal = (signal: NewSignal & { contact_id: number }) =>
  emitSignal(keys.contactPartition(signal.account_id, signal.contact_id), signal);

async function emitSignal(partitionPk: string, signal: NewSignal): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.signal(partitionPk, signalId()),
        type: 'event_signal',
        ...signal,
        created_at: now,
        [TTL_ATTRIBUTE]: now + SIGNAL_LIFETIME_SECONDS,
      },
    }),
  );
}
