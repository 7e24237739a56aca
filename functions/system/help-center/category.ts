import { pageHandler, categoryPageHtml } from '#shared/http/help-center-pages.ts';

// `GET /hc/{slug}/{locale}/categories/{category_slug}`.
export const handler = pageHandler(categoryPageHtml);
