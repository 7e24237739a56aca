import { publicHandler } from '#shared/http/handler.ts';
import { updatePublicContact } from '#shared/domain/public/service.ts';
import { PublicContactUpdateSchema } from '#shared/domain/public/schemas.ts';

export const handler = publicHandler({
  body: PublicContactUpdateSchema,
  rootKey: 'contact',
  run: ({ params, body }) => updatePublicContact(params.inbox_identifier, params.contact_identifier, body),
});
