import { publicHandler } from '#shared/http/handler.ts';
import { inboxInfo } from '#shared/domain/public/service.ts';

export const handler = publicHandler({ run: ({ params }) => inboxInfo(params.inbox_identifier) });
