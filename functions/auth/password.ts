import { publicHandler } from '../../shared/http/handler.ts';
import { PasswordResetRequestSchema } from '../../shared/domain/sessions/schemas.ts';
import { requestPasswordReset } from '../../shared/domain/sessions/service.ts';

export const handler = publicHandler({
  body: PasswordResetRequestSchema,
  run: ({ body }) => requestPasswordReset(body.email),
});
