import * as v from 'valibot';

// A message's text and attachment bounds, which other areas' bodies (campaigns, captain, the widget) share: apart from
// the message schemas, so a route that only bounds a text does not carry them (docs/cost.md#cold-start).

export const MAX_CONTENT = 150_000;
/**
 * Chatwoot's bound is in characters; a DynamoDB item holds 400 KB, and the message item and its
 * conversation's (which keeps the last message) each hold the content once: 150,000 characters of
 * three-byte text would not fit. Text of one- and two-byte characters reaches the character bound first.
 */
export const MAX_CONTENT_BYTES = 200_000;
/** A message's text. */
export const Content = v.pipe(v.string('must be a string'), v.maxLength(MAX_CONTENT), v.maxBytes(MAX_CONTENT_BYTES));
export const MAX_ATTACHMENTS = 15;
