import { apiHandler } from '#shared/http/handler.ts';
import { portalSslStatus } from '#shared/domain/help-center/service.ts';

export const handler = apiHandler({ access: 'administrator', run: ({ account, params }) => portalSslStatus(account.id, params.id) });
