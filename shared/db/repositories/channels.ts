import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import { getItem, getItemNow } from './common.ts';
import { getInbox } from './inboxes.ts';

// Access patterns of the messaging channels (AP300-AP309): the inbox a provider's webhook names, a provider's
// message id in an inbox, and the send claim on an outgoing message.

/** Where a provider's message id points: the message in its conversation. */
export interface ProviderMessageRef {
  account_id: number;
  conversation_id: number;
  message_id: number;
}

type ChannelKey = 'WHATSAPP' | 'SMS' | 'TWILIO' | 'TELEGRAM' | 'LINE' | 'FACEBOOK' | 'INSTAGRAM' | 'INSTAGRAM_LOGIN';

/** AP300, its first read: which account's inbox holds a provider key, from the sentinel alone. */
export const findChannelOwner = (kind: ChannelKey, value: string) =>
  getItem<{ account_id: number; inbox_id: number }>(keys.channelUnique(kind, value));

/** AP300: the channel inbox that holds a provider key (phone number, messaging service sid), by its sentinel. */
export async function findChannelInbox(kind: ChannelKey, value: string) {
  const owner = await findChannelOwner(kind, value);
  return owner ? getInbox(owner.account_id, owner.inbox_id) : undefined;
}

/** AP301: the message a provider id names in an inbox (strongly consistent: a duplicate may follow at once). */
export const findProviderMessage = (inboxId: number, providerId: string) =>
  getItemNow<ProviderMessageRef>(keys.providerMessage(inboxId, providerId));

/**
 * AP302: claims a provider id for a message about to be written. `replacing` is the message id of a claim whose
 * message was never written (its attempt stopped in between): the claim moves to the new message. False when
 * another attempt holds the claim meanwhile.
 */
export async function claimProviderMessage(inboxId: number, providerId: string, ref: ProviderMessageRef, replacing?: number) {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.providerMessage(inboxId, providerId), type: 'provider_message', inbox_id: inboxId, ...ref },
        ...(replacing === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : { ConditionExpression: 'message_id = :old', ExpressionAttributeValues: { ':old': replacing } }),
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** AP303: records the provider id our send was given (a later status webhook finds the message by it). */
export async function recordProviderMessage(inboxId: number, providerId: string, ref: ProviderMessageRef): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.providerMessage(inboxId, providerId), type: 'provider_message', inbox_id: inboxId, ...ref },
    }),
  );
}

/**
 * AP304: claims an outgoing message for one send: `send_claim` is set only when the message has none and no
 * `source_id`. False when another attempt holds it or the message is already sent (or gone).
 */
export async function claimSend(ref: ProviderMessageRef, token: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.message(ref.account_id, ref.conversation_id, ref.message_id),
        UpdateExpression: 'SET send_claim = :t',
        ConditionExpression:
          'attribute_exists(pk) AND attribute_not_exists(send_claim) AND (attribute_not_exists(source_id) OR source_id = :null)',
        ExpressionAttributeValues: { ':t': token, ':null': null },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** AP305: gives a claim back (a send that may be tried again); nothing when another claim replaced it. */
export async function releaseSend(ref: ProviderMessageRef, token: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.message(ref.account_id, ref.conversation_id, ref.message_id),
        UpdateExpression: 'REMOVE send_claim',
        ConditionExpression: 'send_claim = :t',
        ExpressionAttributeValues: { ':t': token },
      }),
    );
  } catch (err) {
    if (!(err instanceof ConditionalCheckFailedException)) throw err;
  }
}

/**
 * AP300's sentinel added to an existing inbox (a lookup value introduced after the inbox was made: Telegram's bot
 * id). False when the value is held already (by this inbox or another).
 */
export async function addChannelKey(kind: ChannelKey, value: string, owner: { account_id: number; inbox_id: number }): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.channelUnique(kind, value), type: 'unique', account_id: owner.account_id, inbox_id: owner.inbox_id },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
