import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../../scripts/openapi.ts';
import { client, runtime } from '../../support/runtime.ts';

// GET /api/openapi.json: the committed document, without a credential, naming this service as its server.

describe('GET /api/openapi.json', () => {
  let base: string;
  const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Record<string, unknown>;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
  });

  it('serves the committed document with the service address as its server', async () => {
    const res = await client(base).get('/api/openapi.json', { 'accept-encoding': 'identity' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('content-encoding')).toBeNull();
    expect(res.body).toEqual({ ...committed, servers: [{ url: base }] });
    expect(res.body.openapi).toBe('3.1.0');
  });

  it('gzips it for clients that take gzip, and ignores a credential', async () => {
    const res = await client(base, 'not-a-token').get('/api/openapi.json', { 'accept-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.body.paths['/api/openapi.json'].get.operationId).toBe('system-openapi');
    expect(Object.keys(res.body.paths)).toEqual(Object.keys(committed.paths as object));
  });
});
