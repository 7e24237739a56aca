import { apiHandler } from '#shared/http/handler.ts';
import { createTwilioInbox } from '#shared/domain/inboxes/service.ts';
import { TwilioChannelSchema } from '#shared/domain/inboxes/schemas.ts';
import { setUpChannelInbox } from '#shared/channels/setup.ts';
import { bodyOf } from '#shared/validate.ts';

// `POST /api/v1/accounts/{account_id}/channels/twilio_channel`: a Twilio SMS or WhatsApp inbox, its credentials
// checked with Twilio (and, for SMS, our callback set on the number or messaging service) (docs/channels.md#twilio).
export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(TwilioChannelSchema),
  rootKey: 'twilio_channel',
  run: ({ account, body }) => createTwilioInbox(account, body, setUpChannelInbox),
});
