import { publicHandler } from '#shared/http/handler.ts';
import { PasswordResetRequestSchema } from '#shared/domain/sessions/schemas.ts';
import { requestPasswordReset } from '#shared/domain/sessions/reset.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(PasswordResetRequestSchema),
  run: ({ body, event }) => requestPasswordReset(body.email, event.requestContext.http.sourceIp),
});
