import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../client.ts';
import * as keys from '../keys.ts';
import type { Key } from '../keys.ts';
import {
  blockOfDay,
  dayKey,
  fieldGroup,
  hourOfDay,
  memberAttr,
  memberBucket,
  memberGroup,
  quarterField,
  quarterOfBlock,
  quarterOfHour,
  type Field,
} from '#shared/model/report-buckets.ts';
import type { ReportFact } from '#shared/model/reports.ts';
import { queryItems } from './common.ts';

// The report aggregate items and their writes: which day, hour, block and grouped items a set of
// contributions updates (the items AP200's fold writes), a fold's marked addition to one item (AP210, by
// bucket when large), and the rebuild's writes (items put, listed by series partition and deleted; the
// account marked as having block and grouped items). Reads of these items are in reports.ts; the facts and
// logs they are folded from in report-logs.ts.

export type AggregateKind = 'day' | 'hour' | 'block' | 'group';
type Adds = Map<string, { key: Key; series: string; values: Map<string, number>; kind: AggregateKind }>;
export type AggregateAdd = Adds extends Map<string, infer E> ? E : never;
export const AGGREGATE_TYPE: Record<AggregateKind, string> = {
  day: 'report_day',
  hour: 'report_hour',
  block: 'report_block',
  group: 'report_group',
};

/** Which items a set of contributions updates: the account's layout (`report_blocks`, `report_groups`). */
export interface AggregateLayout {
  blocks?: boolean;
  groups?: boolean;
}

/**
 * The aggregate item updates of a set of contributions, merged per item: day items, and hour items or
 * (`blocks`: accounts with `report_blocks`) a block item per field group and six hours; with `groups`
 * (accounts with `report_groups`) the grouped items of the series' family too: per member group, a day item
 * and a six-hour block item holding every member's figures (`<member>|<field>`, `<member>|<field>_<q>`).
 */
export function aggregateAdds(accountId: number, fact: Pick<ReportFact, 'contributions'>, layout: AggregateLayout = {}): Adds {
  const out: Adds = new Map();
  const add = (key: Key, series: string, kind: AggregateKind, attr: string, v: number) => {
    const id = `${key.pk}|${key.sk}`;
    let entry = out.get(id);
    if (!entry) out.set(id, (entry = { key, series, values: new Map(), kind }));
    entry.values.set(attr, (entry.values.get(attr) ?? 0) + v);
  };
  for (const c of fact.contributions ?? []) {
    const day = dayKey(c.at);
    const dayItem = keys.reportDay(accountId, c.series, day);
    const hourItem = keys.reportHour(accountId, c.series, hourOfDay(c.at), day);
    const member = layout.groups ? keys.reportFamilyOf(c.series) : undefined;
    for (const [f, v] of Object.entries(c.figures) as [Field, number][]) {
      if (!v) continue;
      add(dayItem, c.series, 'day', f, v);
      if (layout.blocks)
        add(
          keys.reportPart(accountId, c.series, keys.reportBlockLane(fieldGroup(f), blockOfDay(c.at)), day),
          c.series,
          'block',
          quarterField(f, quarterOfBlock(c.at)),
          v,
        );
      else add(hourItem, c.series, 'hour', quarterField(f, quarterOfHour(c.at)), v);
      if (member) {
        const g = memberGroup(f);
        const family = keys.reportGroupSeries(member.family);
        add(keys.reportGroupDay(accountId, member.family, g, day), family, 'group', memberAttr(member.member, f), v);
        add(
          keys.reportGroupBlock(accountId, member.family, g, blockOfDay(c.at), day),
          family,
          'group',
          memberAttr(member.member, quarterField(f, quarterOfBlock(c.at))),
          v,
        );
      }
    }
  }
  return out;
}

/**
 * An item's update too large for one expression (DynamoDB: 4 KB an expression) goes as one update per bucket,
 * each marked `fw_<bucket>` (the fold mark of the bucket's figures), by figure: a member's figure in a grouped
 * item, a field in a series item (a block item of every figure in all its quarters holds hundreds of counters, a
 * label's counts item one `li<inbox>` per inbox, a grouped block one member's figures in 24 quarters). A read adds
 * to each figure exactly the pending part its bucket lacks (`memberFoldMark`), even between two of the updates.
 */
const PARTS_PER_UPDATE = 250;
/**
 * The bucket key of an attribute: its figure without the quarter (`<member>|<field>` in a grouped item, `<field>`
 * in a series item), so every quarter counter of one figure shares its mark. No field ends in `_<digits>`.
 */
const bucketKey = (attr: string) => attr.replace(/_\d+$/, '');
/**
 * AP210: a fold's addition to one aggregate item, marked with the fold (`fw`: the last log it folds) and
 * applied only where no fold this late wrote before: a fold retried after a crash skips the items it wrote.
 * False when skipped. A large addition goes by bucket (`MEMBER_BUCKETS`).
 */
export async function foldAggregate(accountId: number, entry: AggregateAdd, fold: string): Promise<boolean> {
  if (entry.values.size > PARTS_PER_UPDATE) {
    const buckets = new Map<number, Map<string, number>>();
    for (const [attr, v] of entry.values) {
      const b = memberBucket(bucketKey(attr));
      if (!buckets.has(b)) buckets.set(b, new Map());
      buckets.get(b)!.set(attr, v);
    }
    let wrote = false;
    for (const [b, values] of [...buckets].sort(([x], [y]) => x - y)) {
      if (await updateAggregate(accountId, { ...entry, values }, fold, `fw_${b}`)) wrote = true;
    }
    return wrote;
  }
  return updateAggregate(accountId, entry, fold);
}

async function updateAggregate(accountId: number, entry: AggregateAdd, fold: string, bucketMark?: string): Promise<boolean> {
  const names: Record<string, string> = { '#t': 'type', '#a': 'account_id', '#s': 'series', '#fw': 'fw' };
  const values: Record<string, unknown> = {
    ':t': AGGREGATE_TYPE[entry.kind],
    ':a': accountId,
    ':s': entry.series,
    ':fw': fold,
  };
  const parts: string[] = [];
  let i = 0;
  for (const [attr, v] of entry.values) {
    names[`#${i}`] = attr;
    values[`:${i}`] = v;
    parts.push(`#${i} :${i}`);
    i++;
  }
  let set = '#fw = :fw';
  let condition = 'attribute_not_exists(#fw) OR #fw < :fw';
  if (bucketMark) {
    names['#bw'] = bucketMark;
    set = '#bw = :fw';
    condition = `(${condition}) AND (attribute_not_exists(#bw) OR #bw < :fw)`;
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: entry.key,
        UpdateExpression: `${parts.length ? `ADD ${parts.join(', ')} ` : ''}SET #t = :t, #a = :a, #s = :s, ${set}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/**
 * Marks an account's aggregates as block items and grouped items (the rebuild, once it has written them); false
 * when there is no account.
 */
export async function markReportBlocks(accountId: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.account(accountId),
        UpdateExpression: 'SET report_blocks = :t, report_groups = :t',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}

/** Overwrites one aggregate item (the rebuild). */
export async function putAggregate(key: Key, attrs: Record<string, unknown>) {
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...key, ...attrs } }));
}

/** The keys of every item of one aggregate series partition (the rebuild). */
export async function seriesItemKeys(pk: string): Promise<Key[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :p',
    ExpressionAttributeValues: { ':p': pk },
    ProjectionExpression: 'pk, sk',
    ConsistentRead: true,
  });
  return items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) }));
}

/** Deletes one aggregate item no fact accounts for (the rebuild). */
export async function deleteAggregate(key: Key) {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
}
