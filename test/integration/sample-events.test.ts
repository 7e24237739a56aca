import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { lambdaContext } from '../../infra/local/http-server.ts';
import { changeOf } from '#shared/events/forward.ts';
import { eventsOf } from '#shared/domain/events/domain-events.ts';
import { runtime } from '../support/runtime.ts';

// The sample events under events/ (for `sam local invoke`) are real inputs of the handlers.

const sample = <T>(file: string): T => JSON.parse(readFileSync(join(import.meta.dirname, '../../events', file), 'utf8'));

describe('sample events', () => {
  it('events/api/health.json is answered by the health function', async () => {
    await runtime();
    const { handler } = await import('../../functions/system/health.ts');
    const res = await handler(sample<APIGatewayProxyEventV2>('api/health.json'), lambdaContext('health') as Context);
    expect(res.statusCode).toBe(200);
    const body = JSON.parse(String(res.body));
    expect(body.status).toBe('ok');
    // Every dependency the function can reach answered (the table, the key, the queues it was given).
    expect(Object.keys(body.dependencies).length).toBeGreaterThan(0);
    expect(Object.values(body.dependencies).every((state) => state === 'ok')).toBe(true);
  });

  it('events/api/platform-accounts-create.json without a real token gets 401 with the error body', async () => {
    await runtime();
    const { handler } = await import('../../functions/platform/accounts/create.ts');
    const res = await handler(sample<APIGatewayProxyEventV2>('api/platform-accounts-create.json'), lambdaContext('create') as Context);
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(String(res.body))).toMatchObject({ description: expect.any(String), errors: [{ code: 'unauthorized', field: '' }] });
  });

  it('events/stream/contact-modify.json yields one contact change, one contact_updated event, and skips the bookkeeping record', () => {
    const event = sample<DynamoDBStreamEvent>('stream/contact-modify.json');
    const changes = event.Records.map(changeOf);
    expect(changes[0]).toMatchObject({
      id: 'c81e728d9d4c2f636f067f89cc14862c',
      action: 'MODIFY',
      type: 'contact',
      pk: 'CONTACT#1#7',
      at: 1795240800,
      oldImage: { name: 'Ada', custom_attributes: {} },
      newImage: { name: 'Ada Lovelace' },
    });
    expect(changes[1]).toBeUndefined();
    const events = eventsOf(changes[0]!);
    expect(events.map((e) => e.name)).toEqual(['contact_updated']);
    expect(events[0].changedAttributes).toEqual([{ name: { previous_value: 'Ada', current_value: 'Ada Lovelace' } }]);
  });
});
