import { pageHandler, articlePageHtml } from '#shared/http/help-center-pages.ts';

// `GET /hc/{slug}/articles/{article_slug}: a published article (counted as a view)`.
export const handler = pageHandler(articlePageHtml);
