import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { config } from '../config.ts';
import { getItem } from '../db/repositories/common.ts';
import { keys } from '../db/keys.ts';
import { sqs } from '../events/queue.ts';

/** Health: the table answers a read. */
export async function checkStorage() {
  await getItem(keys.sequence('health'));
  return { status: 'ok' };
}

/** The Chatwoot release whose API this service speaks (clients compare it to gate features). */
export const CHATWOOT_API_VERSION = '4.10.0';

// A status probe must answer quickly even when a dependency hangs: past this it counts as failing.
const PROBE_TIMEOUT_MS = 2000;

type Status = 'ok' | 'failing';

async function probe(check: () => Promise<unknown>): Promise<Status> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Status>((resolve) => {
    timer = setTimeout(() => resolve('failing'), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then((): Status => 'ok', (): Status => 'failing'), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const queueAnswers = (url: string | undefined) => async () => {
  if (!url) throw new Error('queue not configured');
  await sqs().send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }));
};

/** `YYYY-MM-DD HH:MM:SS` in UTC, Rails' `:db` format that Chatwoot's `GET /api` shows. */
export const dbTimestamp = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/**
 * Chatwoot's `GET /api`: `queue_services` stands for what Redis is there (the event pipeline's queues),
 * `data_services` for Postgres (the table). Each is a real round trip, side by side.
 */
export async function serviceStatus(queues = [config().eventsQueueUrl, config().deliveriesQueueUrl]) {
  const [data, ...queueStates] = await Promise.all([
    probe(() => getItem(keys.sequence('health'))),
    ...queues.map((url) => probe(queueAnswers(url))),
  ]);
  return {
    version: CHATWOOT_API_VERSION,
    timestamp: dbTimestamp(new Date()),
    queue_services: queueStates.every((s) => s === 'ok') ? 'ok' : 'failing',
    data_services: data,
  };
}
