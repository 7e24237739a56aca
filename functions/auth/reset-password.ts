import { sessionReply } from '#shared/http/auth.ts';
import { publicHandler } from '#shared/http/handler.ts';
import { PasswordResetSchema } from '#shared/domain/sessions/schemas.ts';
import { resetPassword } from '#shared/domain/sessions/service.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(PasswordResetSchema),
  run: async ({ body }) => sessionReply(await resetPassword(body)),
});
