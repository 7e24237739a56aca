import { apiHandler, intParam } from '#shared/http/handler.ts';
import { parseMultipart } from '#shared/http/multipart.ts';
import { updateInbox } from '#shared/domain/inboxes/service.ts';
import { setUpChannelInbox } from '#shared/channels/setup.ts';
import { InboxUpdateSchema, MAX_UPLOAD_BODY_BYTES } from '#shared/domain/inboxes/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'administrator',
  body: bodyOf(InboxUpdateSchema),
  rootKey: 'inbox',
  multipart: parseMultipart,
  maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
  run: (ctx) => updateInbox(ctx.account, intParam(ctx, 'id', 'Inbox'), ctx.body, setUpChannelInbox),
});
