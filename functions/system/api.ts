import { publicHandler } from '#shared/http/handler.ts';
import { serviceStatus } from '#shared/domain/health.ts';

// Chatwoot's unauthenticated `GET /api`: clients (n8n credential tests, uptime checks) call it first.
export const handler = publicHandler({ run: () => serviceStatus() });
