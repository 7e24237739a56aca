import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { TTL_ATTRIBUTE } from '../table.ts';
import type { MailRequestRecord } from '#shared/model/mail.ts';

// Access patterns of the mail outbox (numbers as in docs/data-model.md#keys-and-access-patterns).

/**
 * AP155: writes a mail request (outbox item). Nothing reads it back: its INSERT on the table's stream is
 * what the pipeline mails; the item expires on its own. False when a request of that id exists (a job that
 * names its mail by itself asks twice only after a crash: one mail).
 */
export async function putMailRequest(r: MailRequestRecord): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.mailRequest(r.id), type: 'mail', ...r, [TTL_ATTRIBUTE]: r.expires_at },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
