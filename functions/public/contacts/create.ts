import { publicHandler } from '#shared/http/handler.ts';
import { createPublicContact } from '#shared/domain/public/service.ts';
import { PublicNewContactSchema } from '#shared/domain/public/schemas.ts';

export const handler = publicHandler({
  body: PublicNewContactSchema,
  rootKey: 'contact',
  run: ({ params, body }) => createPublicContact(params.inbox_identifier, body),
});
