import { userHandler } from '#shared/http/handler.ts';
import { profile } from '#shared/domain/users/service.ts';

export const handler = userHandler({ run: ({ user }) => profile(user) });
