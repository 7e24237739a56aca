import { BatchGetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { INDEXES, KEY } from '#shared/db/table.ts';
import { writeUnits, type IndexShape, type Item } from './billing.ts';

// Records every DynamoDB call the handlers make (command, wire body, time, capacity). Reads take the
// capacity DynamoDB Local reports (ReturnConsumedCapacity forced on); writes are billed by AWS's rules
// (billing.ts) from each written item's state before and after, read on a side client that is not
// recorded, and whose time is subtracted from the call's.

export interface DynamoCall {
  command: string;
  /** When it was sent (performance.now()), and how long it took. */
  at?: number;
  ms: number;
  rcu: number;
  wcu: number;
  /** The call's wire body (what the report-writes part filters on). */
  body?: string;
  /** Write units by partition key written (the table's `pk`, or `<index pk attribute>:<value>`): the heat part's meter. */
  partitions?: { partition: string; units: number }[];
}

interface Billing {
  wcu: number;
  ms: number;
  partitions: { partition: string; units: number }[];
}

interface Capacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

function readUnits(command: string, consumed: Capacity | Capacity[] | undefined) {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  let rcu = 0;
  for (const c of list) rcu += c.ReadCapacityUnits ?? c.CapacityUnits ?? 0;
  // Transactional reads cost twice a strongly consistent read.
  return command === 'TransactGetItemsCommand' ? rcu * 2 : rcu;
}

export const isRead = (command: string) => READS.has(command);

/**
 * Sequential round trips of a request's calls: a call sent before every call of the current round had answered
 * runs beside them (the same round); one sent after some call of it answered starts the next round.
 */
export function roundTrips(calls: Pick<DynamoCall, 'at' | 'ms'>[]): number {
  let rounds = 0;
  let firstEnd = -Infinity;
  for (const c of [...calls].sort((a, b) => (a.at ?? 0) - (b.at ?? 0))) {
    const at = c.at ?? 0;
    if (at >= firstEnd) {
      rounds++;
      firstEnd = at + c.ms;
    } else firstEnd = Math.min(firstEnd, at + c.ms);
  }
  return rounds;
}

const indexes: IndexShape[] = Object.values(INDEXES).map((i) => ({ pk: i.pk, sk: i.sk, include: (i as { include?: string[] }).include }));
const TABLE_KEYS = [KEY.pk, KEY.sk];
const utf8 = new TextDecoder();

interface Written {
  table: string;
  key: Item;
  transactional: boolean;
  /** ConditionCheck: billed as a write of the item, no index copy. */
  checkOnly?: boolean;
}

const keyOf = (item: Item): Item => ({ [KEY.pk]: item[KEY.pk], [KEY.sk]: item[KEY.sk] });
const keyId = (k: Item) => `${k[KEY.pk]?.S}|${k[KEY.sk]?.S}`;

function writtenBy(command: string, body: Record<string, any>): Written[] {
  switch (command) {
    case 'PutItemCommand':
      return [{ table: body.TableName, key: keyOf(body.Item), transactional: false }];
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return [{ table: body.TableName, key: body.Key, transactional: false }];
    case 'BatchWriteItemCommand':
      return Object.entries(body.RequestItems as Record<string, any[]>).flatMap(([table, reqs]) =>
        reqs.map((r) => ({ table, key: r.PutRequest ? keyOf(r.PutRequest.Item) : r.DeleteRequest.Key, transactional: false })),
      );
    case 'TransactWriteItemsCommand':
      return (body.TransactItems as any[]).map((t) => {
        if (t.Put) return { table: t.Put.TableName, key: keyOf(t.Put.Item), transactional: true };
        if (t.Update) return { table: t.Update.TableName, key: t.Update.Key, transactional: true };
        if (t.Delete) return { table: t.Delete.TableName, key: t.Delete.Key, transactional: true };
        return { table: t.ConditionCheck.TableName, key: t.ConditionCheck.Key, transactional: true, checkOnly: true };
      });
    default:
      return [];
  }
}

async function readAll(raw: DynamoDBClient, written: Written[]): Promise<Map<string, Item>> {
  const out = new Map<string, Item>();
  const byTable = new Map<string, Item[]>();
  for (const w of written) {
    const list = byTable.get(w.table) ?? [];
    if (!list.some((k) => keyId(k) === keyId(w.key))) list.push(w.key);
    byTable.set(w.table, list);
  }
  for (const [table, list] of byTable) {
    for (let i = 0; i < list.length; i += 100) {
      const res = await raw.send(
        new BatchGetItemCommand({ RequestItems: { [table]: { Keys: list.slice(i, i + 100), ConsistentRead: true } } }),
      );
      for (const item of res.Responses?.[table] ?? []) out.set(`${table}:${keyId(item)}`, item);
    }
  }
  return out;
}

/** How long the spans cover together (overlaps counted once). */
export function spanned(spans: readonly [number, number][]): number {
  let total = 0;
  let reached = Number.NEGATIVE_INFINITY;
  for (const [from, to] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (to <= reached) continue;
    total += to - Math.max(from, reached);
    reached = to;
  }
  return total;
}

export function instrument(client: DynamoDBDocumentClient, raw: DynamoDBClient) {
  let calls: DynamoCall[] = [];
  let sent: { command: string; body: string }[] = [];
  // When the billing reads ran (before and after each write): concurrent writes' reads overlap, so what they take
  // from a request's time is the union of these spans, not their sum (which made a parallel bulk action's time negative).
  let overhead: [number, number][] = [];
  // Off while a loader writes many items (nested calls count): nothing recorded, nothing billed (billing reads every
  // written item twice).
  let offDepth = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (offDepth) return next(args);
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const started = performance.now();
      const out = await next(args);
      const billing = (context as { billing?: Billing }).billing;
      const ms = performance.now() - started - (billing?.ms ?? 0);
      const command = String(context.commandName ?? 'unknown');
      const output = out.output as { ConsumedCapacity?: Capacity | Capacity[] };
      const body = (context as { wireBody?: string }).wireBody;
      calls.push({
        command,
        at: started,
        ms,
        rcu: READS.has(command) ? readUnits(command, output.ConsumedCapacity) : 0,
        wcu: billing?.wcu ?? 0,
        body,
        partitions: billing?.partitions,
      });
      return out;
    },
    { step: 'initialize', name: 'benchRecorder', priority: 'high' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (offDepth) return next(args);
      const rawBody = (args.request as { body?: unknown } | undefined)?.body;
      const command = String(context.commandName);
      // The wire body is the low-level input, so a recorded read can be replayed as is.
      // Decoded as bytes: the SDK's JSON body is a Uint8Array whose valueOf (which Buffer.from calls) warns.
      const body = typeof rawBody === 'string' ? rawBody : rawBody instanceof Uint8Array ? utf8.decode(rawBody) : undefined;
      if (body !== undefined) sent.push({ command, body });
      (context as { wireBody?: string }).wireBody = body;
      if (!WRITES.has(command) || body === undefined) return next(args);
      const written = writtenBy(command, JSON.parse(body));
      const t0 = performance.now();
      const before = await readAll(raw, written);
      let spent = performance.now() - t0;
      overhead.push([t0, t0 + spent]);
      let failed = false;
      try {
        return await next(args);
      } catch (err) {
        failed = true;
        throw err;
      } finally {
        const t1 = performance.now();
        const after = failed ? before : await readAll(raw, written);
        spent += performance.now() - t1;
        overhead.push([t1, performance.now()]);
        let wcu = 0;
        const partitions: { partition: string; units: number }[] = [];
        for (const w of written) {
          const id = `${w.table}:${keyId(w.key)}`;
          const units = writeUnits(before.get(id), after.get(id), {
            transactional: w.transactional,
            indexes: w.checkOnly || failed ? [] : indexes,
            tableKeys: TABLE_KEYS,
          });
          wcu += units.total;
          partitions.push({ partition: String(w.key[KEY.pk]?.S), units: units.table }, ...units.partitions);
        }
        (context as { billing?: Billing }).billing = { wcu, ms: spent, partitions };
      }
    },
    { step: 'serialize', name: 'benchBody', priority: 'low' },
  );
  return {
    /** Runs `work` unrecorded and unbilled (a loader's writes). */
    async unrecorded<T>(work: () => Promise<T>): Promise<T> {
      offDepth++;
      try {
        return await work();
      } finally {
        offDepth--;
      }
    },
    /** The calls since the last take, the wire bodies of what was sent, and the time spent billing them. */
    take(): { calls: DynamoCall[]; sent: { command: string; body: string }[]; overheadMs: number } {
      const out = { calls, sent, overheadMs: spanned(overhead) };
      calls = [];
      sent = [];
      overhead = [];
      return out;
    },
  };
}
