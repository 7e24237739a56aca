import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { publicHandler } from '#shared/http/handler.ts';
import { sessionCredentialsOf } from '#shared/http/auth.ts';
import { validateToken } from '#shared/domain/sessions/service.ts';

export const handler = publicHandler({
  run: ({ event }) => validateToken(sessionCredentialsOf(event as unknown as APIGatewayProxyEventV2)),
});
