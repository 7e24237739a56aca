import { describe, expect, it } from 'vitest';
import { type HeatResult, wholeBill, wholeBillMarkdown } from '../../../bench/heat.ts';

// The whole bill per million messages, from the heat burst's measured figures (us-east-1 list prices).

const heat = (over: Partial<HeatResult> = {}): HeatResult => ({
  messages: 200,
  rate: 500,
  wcuPerMessage: 10,
  rcuPerMessage: 4,
  callsPerMessage: 12,
  byKind: [],
  hottest: [],
  sqs: { sendPerMessage: 0.4, receivePerMessage: 0.3, deletePerMessage: 0.3, otherPerMessage: 0, perMessage: 1 },
  functions: [
    { name: 'api-conversations-messages-create', invocationsPerMessage: 1, msPerMessage: 40 },
    { name: 'dispatch', invocationsPerMessage: 0.25, msPerMessage: 25 },
    { name: 'stream', invocationsPerMessage: 0.5, msPerMessage: 5 },
  ],
  ...over,
});

describe('the whole bill per million messages', () => {
  it('prices every measured component and sums them', () => {
    const bill = wholeBill(heat(), 1.5);
    const line = (name: string) => bill.find((l) => l.component.startsWith(name))!;
    expect(line('DynamoDB writes').perMillion).toBeCloseTo(6.25, 6);
    expect(line('`q` index seal').perMillion).toBeCloseTo(0.9375, 6);
    expect(line('DynamoDB reads').perMillion).toBeCloseTo(0.5, 6);
    // The route: $0.20 a million requests + 0.5 GB × 40 ms × $0.0000133334 per GB-second.
    expect(line('Lambda, the routes').perMillion).toBeCloseTo(0.2 + 0.5 * 0.04 * 13.3334, 4);
    expect(line('Lambda, the routes').measured).toBe('api-conversations-messages-create 1 invocations, 40 ms');
    // Requests by the burst's invocations, GB-seconds by the milliseconds a message.
    expect(line('Lambda, the pipeline').perMillion).toBeCloseTo(0.25 * 0.2 + 0.5 * 0.025 * 13.3334 + 0.5 * 0.2 + 0.5 * 0.005 * 13.3334, 4);
    expect(line('API Gateway').perMillion).toBe(1);
    expect(line('SQS').perMillion).toBe(0.5);
    const parts = bill.filter((l) => l.component !== '**all in**').reduce((t, l) => t + l.perMillion, 0);
    expect(bill.at(-1)).toMatchObject({ component: '**all in**', perMillion: parts });
  });

  it('leaves the seal out when the counts part did not run, and prints nothing without a burst', () => {
    expect(wholeBill(heat()).some((l) => l.component.includes('seal'))).toBe(false);
    expect(wholeBillMarkdown(heat({ functions: [] }))).toEqual([]);
    expect(wholeBillMarkdown(heat()).some((l) => l.startsWith('| **all in** |'))).toBe(true);
  });
});
