import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// Records every DynamoDB call the handlers make (command, wire body, time, consumed capacity), with
// ReturnConsumedCapacity forced on, so the bench can put an endpoint next to the calls it needs.

export interface DynamoCall {
  command: string;
  ms: number;
  rcu: number;
  wcu: number;
}

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);

function units(command: string, consumed: Capacity | Capacity[] | undefined) {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  let rcu = 0;
  let wcu = 0;
  for (const c of list) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      rcu += c.ReadCapacityUnits ?? 0;
      wcu += c.WriteCapacityUnits ?? 0;
    } else if (READS.has(command)) rcu += c.CapacityUnits ?? 0;
    else wcu += c.CapacityUnits ?? 0;
  }
  return { rcu, wcu };
}

export const isRead = (command: string) => READS.has(command);

export function instrument(client: DynamoDBDocumentClient) {
  let calls: DynamoCall[] = [];
  let sent: { command: string; body: string }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const started = performance.now();
      const out = await next(args);
      const ms = performance.now() - started;
      const command = String(context.commandName ?? 'unknown');
      const output = out.output as { ConsumedCapacity?: Capacity | Capacity[] };
      calls.push({ command, ms, ...units(command, output.ConsumedCapacity) });
      return out;
    },
    { step: 'initialize', name: 'benchRecorder', priority: 'high' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const body = (args.request as { body?: unknown } | undefined)?.body;
      // The wire body is the low-level input, so a recorded read can be replayed as is.
      if (typeof body === 'string' || body instanceof Uint8Array) {
        sent.push({ command: String(context.commandName), body: typeof body === 'string' ? body : Buffer.from(body).toString('utf8') });
      }
      return next(args);
    },
    { step: 'serialize', name: 'benchBody', priority: 'low' },
  );
  return {
    /** The calls since the last take, and the wire bodies of what was sent. */
    take(): { calls: DynamoCall[]; sent: { command: string; body: string }[] } {
      const out = { calls, sent };
      calls = [];
      sent = [];
      return out;
    },
  };
}
