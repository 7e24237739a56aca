import type { Runtime } from '../infra/local/runtime.ts';
import { connectCable } from '../test/support/cable.ts';
import { client, seedAccountVia } from '../test/support/http.ts';
import { costMarkdown, costTable } from './cable-cost.ts';
import type { BenchWorld } from './scenarios/types.ts';

// /cable through the local runtime: from the start of an agent's API write to the message.created
// frame on the contact's socket (stream → queue → dispatcher → broadcast stage → socket).

export interface CableResult {
  writeToFrame: { samples: number; p50: number; p95: number; max: number };
  cost: ReturnType<typeof costTable>;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

export async function benchCable(world: BenchWorld, rt: Runtime, samples = 40): Promise<CableResult> {
  await rt.pipeline.resume();
  const seeded = await seedAccountVia(world.baseUrl, world.platform, world.unique('cable'));
  const api = seeded.admin.api;
  const pub = client(world.baseUrl);
  const socket = await connectCable(world.baseUrl);
  try {
    const inbox = await api.post(`${seeded.base}/inboxes`, { name: world.unique('cable'), channel: { type: 'api' } });
    const id = inbox.body.inbox_identifier as string;
    const contact = await pub.post(`/public/api/v1/inboxes/${id}/contacts`, { name: 'Bench visitor' });
    const conv = await pub.post(`/public/api/v1/inboxes/${id}/contacts/${contact.body.source_id}/conversations`, {});
    if (conv.status !== 200) throw new Error(`cable setup failed: ${conv.text}`);
    await socket.waitFor((f) => f.type === 'welcome');
    const identifier = socket.subscribe({ pubsub_token: contact.body.pubsub_token });
    await socket.waitFor((f) => f.type === 'confirm_subscription' && f.identifier === identifier);
    const path = `${seeded.base}/conversations/${conv.body.id}/messages`;
    const latencies: number[] = [];
    for (let i = 0; i < samples + 3; i++) {
      const started = Date.now();
      const m = await api.post(path, { content: `cable ${i}` });
      const frame = await socket.waitFor((f) => f.message?.event === 'message.created' && f.message.data.id === m.body.id, 20_000);
      const at = socket.received.find((r) => r.frame === frame)!.at;
      if (i >= 3) latencies.push(at - started);
    }
    return {
      writeToFrame: { samples: latencies.length, p50: pct(latencies, 50), p95: pct(latencies, 95), max: Math.max(...latencies) },
      cost: costTable(),
    };
  } finally {
    await socket.close();
    await rt.pipeline.pause();
  }
}

export function cableMarkdown(c: CableResult): string {
  return [
    '## Realtime (/cable)',
    '',
    'Through the local runtime: the same RoomChannel code and broadcast stage as deployed; the local server stands in for API Gateway.',
    '',
    '| measure | value |',
    '|---|---|',
    `| agent reply (API write) → \`message.created\` frame on the contact's socket, p50 / p95 / max (${c.writeToFrame.samples} sequential writes) | ${c.writeToFrame.p50} / ${c.writeToFrame.p95} / ${c.writeToFrame.max} ms |`,
    '',
    'Monthly cost of idle connections (model in `bench/cable-cost.ts`; see docs/cost.md):',
    '',
    ...costMarkdown(),
    '',
  ].join('\n');
}
