import { apiHandler } from '#shared/http/handler.ts';
import { deletePortal } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, params }) => deletePortal(account.id, params.id) });
