import type { RequestDocs } from '#shared/http/handler.ts';
import { pageHandler, searchPageHtml } from '#shared/http/help-center-pages.ts';
import { HelpCenterSearchQuery } from '#shared/http/query-docs.ts';

// `GET /hc/{slug}/{locale}/articles?query=`: the search results page (the header's form sends here).
export const handler = Object.assign(pageHandler(searchPageHtml), { docs: { query: HelpCenterSearchQuery } satisfies RequestDocs });
