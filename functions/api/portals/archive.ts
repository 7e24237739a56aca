import { apiHandler } from '#shared/http/handler.ts';
import { archivePortal } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, params }) => archivePortal(account.id, params.id) });
