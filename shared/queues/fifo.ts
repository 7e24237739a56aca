import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * One batch of a FIFO queue: message groups side by side, each group's messages one by one. The first
 * message a handler does not finish (returns false or throws) goes back to the queue with the rest of
 * its group, so nothing in a group overtakes it; other groups go on.
 */
export async function inGroupOrder(
  event: SQSEvent,
  handle: (record: SQSRecord) => Promise<boolean>,
  onError: (record: SQSRecord, error: unknown) => void,
): Promise<SQSBatchResponse> {
  const groups = new Map<string, SQSRecord[]>();
  for (const r of event.Records) {
    const g = r.attributes.MessageGroupId ?? r.messageId;
    groups.set(g, [...(groups.get(g) ?? []), r]);
  }
  const failures: string[] = [];
  await Promise.all(
    [...groups.values()].map(async (records) => {
      for (let i = 0; i < records.length; i++) {
        let done = false;
        try {
          done = await handle(records[i]);
        } catch (err) {
          onError(records[i], err);
        }
        if (!done) {
          failures.push(...records.slice(i).map((r) => r.messageId));
          return;
        }
      }
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}
