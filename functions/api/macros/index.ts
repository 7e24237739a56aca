import { apiHandler } from '#shared/http/handler.ts';
import { listMacros } from '#shared/domain/macros/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account, actor }) => listMacros(account.id, actor) });
