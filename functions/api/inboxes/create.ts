import { apiHandler } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { createInbox } from '#shared/domain/inboxes/service.ts';
import { setUpChannelInbox } from '#shared/channels/setup.ts';
import { NewInboxSchema, MAX_UPLOAD_BODY_BYTES } from '#shared/domain/inboxes/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(NewInboxSchema),
  rootKey: 'inbox',
  multipart: parseMultipart,
  maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
  run: ({ account, body }) => createInbox(account, body, setUpChannelInbox),
});
