import { publicHandler } from '../../shared/http/handler.ts';
import { checkStorage } from '../../shared/domain/health.ts';

export const handler = publicHandler({ run: () => checkStorage() });
