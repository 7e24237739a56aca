import type { RequestDocs } from '#shared/http/handler.ts';
import { articlesJson, pageHandler } from '#shared/http/help-center-pages.ts';
import { HelpCenterArticlesQuery } from '#shared/http/query-docs.ts';

// `GET /hc/{slug}/{locale}/articles.json`: the locale's published articles as JSON (the web widget's list and search).
export const handler = Object.assign(pageHandler(articlesJson, true), { docs: { query: HelpCenterArticlesQuery } satisfies RequestDocs });
