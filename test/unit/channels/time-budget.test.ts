import { describe, expect, it } from 'vitest';
import { PROVIDER_CALL_MS } from '#shared/channels/http.ts';
import { mediaNeedMs } from '#shared/channels/inbound.ts';
import { mayStartSend, sendBudgetMs } from '#shared/channels/send.ts';

// The channel consumers start work only with the time it may take left in the invocation, so that the function's
// timeout does not cut a send off between the provider's answer and its record, or a webhook in the middle.

const now = 1_000_000;
const clock = (leftMs: number, fullMs: number) => ({ deadline: now + leftMs, fullMs });

describe('starting a send', () => {
  it('needs one provider call per part and a margin', () => {
    expect(sendBudgetMs(0)).toBe(PROVIDER_CALL_MS + 5_000);
    expect(sendBudgetMs(2)).toBe(3 * PROVIDER_CALL_MS + 5_000);
  });

  it('starts a text in a fresh invocation of the deployed 20 s, and not with 10 s left', () => {
    expect(mayStartSend(clock(19_900, 20_000), 0, now)).toBe(true);
    expect(mayStartSend(clock(10_000, 20_000), 0, now)).toBe(false);
  });

  it('starts a message needing more than any invocation has only while the invocation is as good as fresh', () => {
    expect(mayStartSend(clock(99_000, 100_000), 10, now)).toBe(true);
    expect(mayStartSend(clock(90_000, 100_000), 10, now)).toBe(false);
    expect(mayStartSend(clock(90_000, 100_000), 1, now)).toBe(true);
  });

  it('is never held back without a Lambda context', () => {
    expect(mayStartSend({ deadline: Number.POSITIVE_INFINITY, fullMs: Number.POSITIVE_INFINITY }, 50, now)).toBe(true);
  });
});

describe('fetching one more file of a webhook', () => {
  it('needs a download and a margin, at most what the invocation had less the margin', () => {
    expect(mediaNeedMs(60_000)).toBe(40_000);
    expect(mediaNeedMs(30_000)).toBe(20_000);
    expect(mediaNeedMs(Number.POSITIVE_INFINITY)).toBe(40_000);
  });
});
