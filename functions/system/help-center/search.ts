import { pageHandler, searchPageHtml } from '#shared/http/help-center-pages.ts';

// `GET /hc/{slug}/{locale}/articles?query=`: the search results page (the header's form sends here).
export const handler = pageHandler(searchPageHtml);
