import { apiHandler } from '#shared/http/handler.ts';
import { bulkAction } from '#shared/domain/bulk-actions/service.ts';
import { BulkActionSchema } from '#shared/domain/bulk-actions/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(BulkActionSchema),
  run: ({ account, actor, body }) => bulkAction(account, actor, body),
});
