import { createDirectUpload } from '#shared/storage/direct-uploads.ts';
import type { WidgetRequest } from './chat.ts';
import type { DirectUpload } from './schemas.ts';
import { visitorSession } from './service.ts';

/** `POST /api/v1/widget/direct_uploads`: an upload only this visitor (its contact inbox) can attach. */
export async function createWidgetDirectUpload(req: WidgetRequest, input: DirectUpload) {
  const { ci } = await visitorSession(req.websiteToken, req.authToken);
  return createDirectUpload({ account_id: ci.account_id, inbox_id: ci.inbox_id, source_id: ci.source_id }, input.blob);
}
