import { articlesJson, pageHandler } from '#shared/http/help-center-pages.ts';

// `GET /hc/{slug}/{locale}/articles.json`: the locale's published articles as JSON (the web widget's list and search).
export const handler = pageHandler(articlesJson, true);
