import { apiHandler } from '#shared/http/handler.ts';
import { requirePortal } from '#shared/domain/help-center/service.ts';

// `DELETE …/portals/{id}/logo`: the service stores no portal logos, so there is never one to remove.
export const handler = apiHandler({
  access: 'administrator',
  run: async ({ account, params }) => {
    await requirePortal(account.id, params.id);
  },
});
