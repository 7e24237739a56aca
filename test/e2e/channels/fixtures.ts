import { expect } from 'vitest';
import type { Receiver } from '../../support/receiver.ts';
import type { SeededAccount } from '../../support/runtime.ts';
import { until } from '../../support/until.ts';

// What every channel test reads back: a conversation's messages through the account API, a message by its
// provider id once the pipeline stored it, and the account webhook's deliveries of an event.

export async function messagesOf(s: SeededAccount, conversationId: number): Promise<any[]> {
  const res = await s.admin.api.get(`${s.base}/conversations/${conversationId}/messages`);
  expect(res.status).toBe(200);
  return res.body.payload as any[];
}

export const messageBySource = (s: SeededAccount, conversationId: number, sourceId: string) =>
  until(async () => (await messagesOf(s, conversationId)).find((m) => m.source_id === sourceId), { what: `message ${sourceId}` });

export const deliveries = (hook: Receiver, name: string, match: (j: any) => boolean = () => true) =>
  hook.received.filter((r) => r.json?.event === name && match(r.json));
