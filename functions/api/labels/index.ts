import { apiHandler } from '#shared/http/handler.ts';
import { listLabels } from '#shared/domain/labels/service.ts';

export const handler = apiHandler({ access: 'member', run: ({ account }) => listLabels(account.id) });
