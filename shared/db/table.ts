// The one table's physical shape, read by the CDK construct and by the local runtime alike.
export const KEY = { pk: 'pk', sk: 'sk' } as const;

export const INDEXES = {
  /** Inverted and secondary lookups: a user's accounts, an account's bots, … (see keys.ts). */
  gsi1: { name: 'gsi1', pk: 'gsi1pk', sk: 'gsi1sk' },
  /** Second lookup per item where one is not enough (e.g. contacts by inbox source id). */
  gsi2: { name: 'gsi2', pk: 'gsi2pk', sk: 'gsi2sk' },
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
      Projection: { ProjectionType: 'ALL' as const },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const },
  };
}
