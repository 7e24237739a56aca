import { pageHandler, sitemap } from '#shared/http/help-center-pages.ts';

// `GET /hc/{slug}/sitemap.xml`.
export const handler = pageHandler(sitemap);
