import { apiHandler } from '#shared/http/handler.ts';
import { accountJson } from '#shared/domain/accounts/view.ts';

export const handler = apiHandler({ access: 'member', run: ({ account }) => accountJson(account) });
