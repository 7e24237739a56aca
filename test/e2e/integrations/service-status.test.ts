import { beforeAll, describe, expect, it } from 'vitest';
import { serviceStatus } from '#shared/domain/health.ts';
import { config } from '#shared/config.ts';
import { client, runtime } from '../../support/runtime.ts';

// Chatwoot's `GET /api`: no credential, real probes of the table and the queues.

describe('GET /api (service status)', () => {
  let base: string;
  beforeAll(async () => {
    base = (await runtime()).baseUrl;
  });

  it('answers without a credential with version, timestamp and ok services', async () => {
    const before = Date.now();
    // n8n's credential test sends only the token header (and Chatwoot ignores it here).
    for (const res of [await client(base).get('/api'), await client(base, 'not-a-token').get('/api/')]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body).toEqual({
        version: '4.10.0',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        queue_services: 'ok',
        data_services: 'ok',
      });
      const at = Date.parse(`${res.body.timestamp.replace(' ', 'T')}Z`);
      expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(at).toBeLessThanOrEqual(Date.now());
    }
  });

  it('reports queue_services failing when a queue does not answer', async () => {
    await runtime();
    const missing = config().eventsQueueUrl!.replace(/[^/]+$/, 'no-such-queue.fifo');
    const status = await serviceStatus([config().eventsQueueUrl, missing]);
    expect(status.queue_services).toBe('failing');
    expect(status.data_services).toBe('ok');
    expect((await serviceStatus([undefined])).queue_services).toBe('failing');
  });
});
