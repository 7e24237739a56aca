import { userHandler } from '#shared/http/handler.ts';
import { removeProfileAvatar } from '#shared/domain/users/profile.ts';

export const handler = userHandler({ run: ({ user }) => removeProfileAvatar(user) });
