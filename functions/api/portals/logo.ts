import { apiHandler } from '#shared/http/handler.ts';
import { deletePortalLogo } from '#shared/domain/help-center/service.ts';

// `DELETE …/portals/{id}/logo`: the portal's logo and its file removed.
export const handler = apiHandler({ access: 'administrator', run: ({ account, params }) => deletePortalLogo(account.id, params.id) });
