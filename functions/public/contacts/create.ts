import { publicHandler } from '#shared/http/handler.ts';
import { createPublicContact } from '#shared/domain/public/service.ts';
import { PublicNewContactSchema } from '#shared/domain/public/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(PublicNewContactSchema),
  rootKey: 'contact',
  run: ({ params, body }) => createPublicContact(params.inbox_identifier, body),
});
