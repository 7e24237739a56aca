import type { Scenarios } from './types.ts';

// Routes that EvolutionAPI and the n8n Chatwoot nodes call: one scenario per route.

export const integrations: Scenarios = {
  'GET /api': { request: () => ({ method: 'GET', path: '/api' }) },
};
