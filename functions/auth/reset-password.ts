import { publicHandler } from '../../shared/http/handler.ts';
import { PasswordResetSchema } from '../../shared/domain/sessions/schemas.ts';
import { resetPassword } from '../../shared/domain/sessions/service.ts';

export const handler = publicHandler({ body: PasswordResetSchema, run: ({ body }) => resetPassword(body) });
