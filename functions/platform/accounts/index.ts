import { platformHandler } from '#shared/http/handler.ts';
import { listAccounts } from '#shared/domain/accounts/service.ts';

export const handler = platformHandler({ run: ({ appId }) => listAccounts(appId) });
