import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { queryReportDays, recordFacts, type FactWrite } from '../../shared/db/repositories/reports.ts';
import { dayKey } from '../../shared/domain/reports/buckets.ts';
import { runtime } from '../support/runtime.ts';

// A dispatcher batch's figure-only report facts written together (DynamoDB Local): the facts of one
// account and the aggregate items they share in one transaction, and a redelivered batch adding nothing.

describe('report facts of a batch (recordFacts)', () => {
  const accountId = 800_000_000 + Math.floor(Math.random() * 1_000_000);
  const t = Math.floor(Date.now() / 1000 / 86_400) * 86_400 + 3_600;
  const calls: string[] = [];
  beforeAll(async () => {
    await runtime();
    db().middlewareStack.add(
      (next, context) => async (args) => {
        const input = JSON.stringify(args.input);
        if (input.includes(`RPTF#${accountId}`) || input.includes(`RPT#${accountId}#`)) calls.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'reportFactsRecorder' },
    );
  });

  const fact = (n: number, at = t): FactWrite => ({
    fact: {
      id: `batch-test:${accountId}:${n}`,
      account_id: accountId,
      conversation_id: 1,
      contributions: [
        { series: keys.reportSeries.account(), at, figures: { im: 1 } },
        { series: keys.reportSeries.inbox(7), at, figures: { im: 1 } },
      ],
      created_at: at,
    },
  });
  const incoming = async (series: string) => (await queryReportDays(accountId, series, dayKey(t), dayKey(t))).get(dayKey(t))?.im ?? 0;

  it('writes ten facts and their four shared aggregate items in one transaction', async () => {
    calls.length = 0;
    await recordFacts(Array.from({ length: 10 }, (_, i) => fact(i)));
    expect(calls).toEqual(['TransactWriteItemsCommand']);
    expect(await incoming(keys.reportSeries.account())).toBe(10);
    expect(await incoming(keys.reportSeries.inbox(7))).toBe(10);
  });

  it('adds nothing twice when part of a batch comes again', async () => {
    calls.length = 0;
    // Facts 8 and 9 were recorded before; 10 and 11 are new.
    await recordFacts([fact(8), fact(9), fact(10), fact(11)]);
    expect(calls[0]).toBe('TransactWriteItemsCommand');
    expect(await incoming(keys.reportSeries.account())).toBe(12);
    expect(await incoming(keys.reportSeries.inbox(7))).toBe(12);
  });
});
