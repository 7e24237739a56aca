import { pageHandler, portalRoot } from '#shared/http/help-center-pages.ts';

// `GET /hc/{slug}: to the default locale's page`.
export const handler = pageHandler(portalRoot);
