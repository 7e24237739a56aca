import { sessionReply } from '#shared/http/auth.ts';
import { publicHandler } from '#shared/http/handler.ts';
import { SignInSchema } from '#shared/domain/sessions/schemas.ts';
import { signIn } from '#shared/domain/sessions/service.ts';
import { bodyOf } from '#shared/validate.ts';

export const handler = publicHandler({
  body: bodyOf(SignInSchema),
  run: async ({ body, event }) => sessionReply(await signIn(body, event.requestContext.http.sourceIp)),
});
