// The one table's physical shape, read by the CDK construct and by the local runtime alike.
export const KEY = { pk: 'pk', sk: 'sk' } as const;

export const INDEXES = {
  /** Inverted and secondary lookups: a user's accounts, an account's bots, … (see keys.ts). */
  gsi1: { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' },
  /** Second lookup per item where one is not enough (e.g. contacts by inbox source id). */
  gsi2: { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk' },
  /**
   * Conversations by inbox and status, newest activity first, whole items (AP63, AP79): a page of one inbox (or
   * of an agent's few inboxes) is one Query per (inbox, status) partition and its 25 conversations come with it,
   * no read by key after the rows. Its sort key moves with every new message (a delete and a put of the copy:
   * 1 write unit each way while the conversation item stays under 1 KB), and every other change of a
   * conversation rewrites the copy in place (1). Named `gsi3w` because it replaces `gsi3`, which projected
   * only the fields lists filter and sort on: an index's projection cannot change in place
   * (docs/deploy.md#upgrading-to-whole-copies-in-gsi3w).
   */
  gsi3: { name: 'gsi3w', pk: 'gsi3pk', sk: 'gsi3sk' },
  /**
   * Conversations by account and status, newest activity first, whole items (AP62): a list page of the
   * whole account is one Query per shard, flat in the account's inboxes, and its 25 conversations come with
   * it (a Query bills the sum of the items read, a BatchGet half a unit per item). A team's conversations are in
   * their team's own partition (a team's page reads it alone); the others are sharded by display id (keys.ts
   * LIST_SHARDS, accountListPart), so one busy account's moves spread over more than one partition. A conversation
   * item stays under 1 KB, so a move costs one write unit out and one in.
   */
  gsi4: { name: 'gsi4', pk: 'gsi4pk', sk: 'gsi4sk' },
} as const;

type IndexDef = { name: string; pk: string; sk: string; include?: readonly string[] };

/**
 * The index `gsi3w` replaces (same keys, only the fields lists filter and sort on). No code writes or needs it; a
 * stack upgraded from a version that had it keeps it for one deployment, and reads fall back to it while `gsi3w`
 * is still being built (docs/deploy.md#upgrading-to-whole-copies-in-gsi3w).
 */
export const SLIM_ACTIVITY_INDEX = {
  name: 'gsi3',
  pk: 'gsi3pk',
  sk: 'gsi3sk',
  include: [
    'id',
    'account_id',
    'inbox_id',
    'contact_id',
    'status',
    'assignee_id',
    'assignee_agent_bot_id',
    'team_id',
    'priority',
    'labels',
    'created_at',
    'last_activity_at',
    'waiting_since',
  ],
} as const;

export const TTL_ATTRIBUTE = 'ttl';

/** Every item carries its entity name here; stream filters and the dispatcher key on it. */
export const TYPE_ATTRIBUTE = 'type';

export const KEY_ATTRIBUTES: string[] = [KEY.pk, KEY.sk, ...Object.values(INDEXES).flatMap((i) => [i.pk, i.sk])];

/** The CreateTable input, for DynamoDB Local and for tests; infra builds the same from these names. */
export function createTableInput(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: KEY.pk, KeyType: 'HASH' as const },
      { AttributeName: KEY.sk, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: Object.values(INDEXES).map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: i.pk, KeyType: 'HASH' as const },
        { AttributeName: i.sk, KeyType: 'RANGE' as const },
      ],
      Projection: (i as IndexDef).include
        ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...(i as IndexDef).include!] }
        : { ProjectionType: 'ALL' as const },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const },
  };
}
