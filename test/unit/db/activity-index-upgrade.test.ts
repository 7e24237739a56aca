import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '#shared/db/client.ts';
import { conversationsByInboxStatus } from '#shared/db/repositories/conversations.ts';
import { INDEXES, SLIM_ACTIVITY_INDEX } from '#shared/db/table.ts';
import { overrideEnv } from '../../support/env.ts';

// While a stack upgrade builds gsi3w, DynamoDB refuses its Queries; the inbox pages read the slim gsi3 kept for that
// deployment meanwhile (docs/deploy.md#upgrading-to-whole-copies-in-gsi3w). The client answers here without a network:
// a middleware stands in for DynamoDB, refusing gsi3w with the error it is told to.

const asked: string[] = [];
let refusal: Error | undefined;
const NAME = 'activityIndexStandIn';
let restore: () => void;
beforeAll(() => {
  restore = overrideEnv({ TABLE_NAME: 'no-table-in-unit-tests' });
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'QueryCommand') return next(args);
      const index = (args.input as { IndexName?: string }).IndexName!;
      asked.push(index);
      if (index === INDEXES.gsi3.name && refusal) throw refusal;
      const slim = {
        id: 7,
        account_id: 1,
        inbox_id: 2,
        contact_id: 3,
        status: 'open',
        assignee_id: null,
        team_id: null,
        last_activity_at: 10,
      };
      const item = index === SLIM_ACTIVITY_INDEX.name ? slim : { ...slim, uuid: 'u', labels: ['vip'], last_message: null };
      return { output: { Items: [item], $metadata: {} } } as never;
    },
    { step: 'initialize', name: NAME, priority: 'high' },
  );
});
afterAll(() => {
  db().middlewareStack.remove(NAME);
  restore();
});

const page = async () => {
  const out = [];
  for await (const row of conversationsByInboxStatus(1, 2, 'open', 25)) out.push(row);
  return out;
};

describe('the inbox activity index during its upgrade', () => {
  it('reads whole conversations from gsi3w', async () => {
    const [whole] = await page();
    expect(asked).toEqual([INDEXES.gsi3.name]);
    expect(whole).toMatchObject({ id: 7, uuid: 'u', labels: ['vip'] });
  });

  it('does not hide other errors of gsi3w', async () => {
    refusal = Object.assign(new Error('Throughput exceeded'), { name: 'ProvisionedThroughputExceededException' });
    asked.length = 0;
    await expect(page()).rejects.toThrow('Throughput exceeded');
    expect(asked).toEqual([INDEXES.gsi3.name]);
  });

  it('reads the slim gsi3 while gsi3w is being built, without asking gsi3w again within the minute', async () => {
    refusal = Object.assign(new Error(`Cannot read from backfilling global secondary index: ${INDEXES.gsi3.name}`), {
      name: 'ValidationException',
    });
    asked.length = 0;
    const [slim] = await page();
    expect(asked).toEqual([INDEXES.gsi3.name, SLIM_ACTIVITY_INDEX.name]);
    // A slim row: the page reads it by key (pageRecords).
    expect(slim).toMatchObject({ id: 7, labels: [] });
    expect('uuid' in slim).toBe(false);
    asked.length = 0;
    await page();
    expect(asked).toEqual([SLIM_ACTIVITY_INDEX.name]);
  });
});
