import { apiHandler } from '#shared/http/handler.ts';
import { readAll } from '#shared/domain/notifications/service.ts';
import { ReadAllSchema } from '#shared/domain/notifications/schemas.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = apiHandler({
  access: 'member',
  body: bodyOf(ReadAllSchema),
  run: ({ account, actor, body }) => readAll(account, actor, body),
});
