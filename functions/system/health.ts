import { publicHandler } from '#shared/http/handler.ts';
import { readiness } from '#shared/domain/health.ts';

export const handler = publicHandler({ run: () => readiness() });
