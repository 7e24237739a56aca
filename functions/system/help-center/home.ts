import { pageHandler, homePage } from '#shared/http/help-center-pages.ts';

// `GET /hc/{slug}/{locale}: the locale's categories and articles`.
export const handler = pageHandler(homePage);
