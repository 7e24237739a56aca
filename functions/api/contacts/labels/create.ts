import { apiHandler, intParam } from '#shared/http/handler.ts';
import { replaceContactLabels } from '#shared/domain/contacts/service.ts';
import { LabelsSchema } from '#shared/domain/contacts/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

// Contract endpoint 5 (docs/contract.md#endpoints): the submitted list replaces the contact's labels.
export const handler = apiHandler({
  access: 'member',
  body: bodyOf(LabelsSchema),
  run: (ctx) => replaceContactLabels(ctx.account.id, intParam(ctx, 'id', 'Contact'), ctx.body.labels),
});
