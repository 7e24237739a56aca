import { apiHandler } from '#shared/http/handler.ts';
import { bulkAction } from '#shared/domain/bulk-actions/service.ts';
import { BulkActionSchema } from '#shared/domain/bulk-actions/schemas.ts';

export const handler = apiHandler({
  access: 'member',
  body: BulkActionSchema,
  run: ({ account, actor, body }) => bulkAction(account, actor, body),
});
