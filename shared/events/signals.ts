import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../db/client.ts';
import { keys } from '../db/keys.ts';
import { TTL_ATTRIBUTE } from '../db/table.ts';
import type { Performer } from '../domain/messages/model.ts';

/** Events that change no record: they travel the same stream as item changes, as short-lived items. */
export type SignalName = 'conversation_typing_on' | 'conversation_typing_off' | 'webwidget_triggered' | 'contact_merged';

export interface SignalRecord {
  name: SignalName;
  account_id: number;
  /** The conversation it concerns, when there is one. */
  conversation_id: number | null;
  contact_id: number | null;
  inbox_id: number | null;
  performed_by: Performer | null;
  is_private: boolean;
  /** Anything else the event carries (e.g. webwidget_triggered's event_info). */
  data: Record<string, unknown>;
  created_at: number;
}

const SIGNAL_LIFETIME_SECONDS = 24 * 3600;

/** Time-ordered, so signals of one partition sort in the order they were raised. */
const signalId = () => `${Date.now().toString(36).padStart(10, '0')}${randomBytes(6).toString('hex')}`;

/** Raises a signal in the partition `partitionPk` (a conversation's, so it stays in order with its messages). */
export async function emitSignal(partitionPk: string, signal: Omit<SignalRecord, 'created_at'>): Promise<void> {
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
