import { publicHandler } from '#shared/http/handler.ts';
import { updatePublicContact } from '#shared/domain/public/service.ts';
import { PublicContactUpdateSchema } from '#shared/domain/public/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(PublicContactUpdateSchema),
  rootKey: 'contact',
  run: ({ params, body }) => updatePublicContact(params.inbox_identifier, params.contact_identifier, body),
});
