import { describe, expect, it } from 'vitest';
import { oversizedKeyIn } from '#shared/db/client.ts';
import { KEY_VALUE_LIMITS, oversizedKeyValue } from '#shared/db/keys.ts';

// The last guard of key building: a key value over DynamoDB's limits (2048 bytes for a partition key,
// 1024 for a sort key, table and indexes alike) is found in any command's input, so the client refuses
// it with 422 before the call (DynamoDB would answer a ValidationException, which would be a 500).

describe('key value limits', () => {
  it('finds the key attribute over its limit, in bytes, plain or marshalled', () => {
    expect(
      oversizedKeyValue({ pk: 'a'.repeat(KEY_VALUE_LIMITS.partition), sk: 'b'.repeat(KEY_VALUE_LIMITS.sort), note: 'c'.repeat(10_000) }),
    ).toBeUndefined();
    expect(oversizedKeyValue({ pk: 'a'.repeat(2049), sk: 'x' })).toBe('pk');
    expect(oversizedKeyValue({ pk: 'x', gsi2sk: '☃'.repeat(342) })).toBe('gsi2sk');
    expect(oversizedKeyValue({ gsi1pk: { S: 'é'.repeat(1025) } })).toBe('gsi1pk');
  });

  it('finds it in keys, items, transactions, batches and key conditions', () => {
    const big = 'x'.repeat(3000);
    expect(oversizedKeyIn({ Key: { pk: `UNIQ#${big}`, sk: 'UNIQ' } })).toBe('pk');
    expect(oversizedKeyIn({ Item: { pk: 'a', sk: 'b', gsi1sk: big } })).toBe('gsi1sk');
    expect(oversizedKeyIn({ TransactItems: [{ Put: { Item: { pk: 'a', sk: 'b' } } }, { Delete: { Key: { pk: 'a', sk: big } } }] })).toBe(
      'sk',
    );
    expect(
      oversizedKeyIn({
        RequestItems: {
          t: {
            Keys: [
              { pk: 'a', sk: 'b' },
              { pk: big, sk: 'c' },
            ],
          },
        },
      }),
    ).toBe('pk');
    expect(oversizedKeyIn({ RequestItems: { t: [{ PutRequest: { Item: { pk: 'a', sk: big } } }] } })).toBe('sk');
    expect(
      oversizedKeyIn({
        KeyConditionExpression: '#p = :p AND begins_with(#s, :s)',
        ExpressionAttributeNames: { '#p': 'gsi1pk', '#s': 'gsi1sk' },
        ExpressionAttributeValues: { ':p': 'USER#1', ':s': big },
      }),
    ).toBe('gsi1sk');
    expect(
      oversizedKeyIn({
        KeyConditionExpression: 'pk = :p AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: { ':p': 'a', ':lo': 'b', ':hi': big },
      }),
    ).toBe('sk');
    expect(
      oversizedKeyIn({
        KeyConditionExpression: 'pk = :p AND sk >= :lo',
        ExpressionAttributeValues: { ':p': 'a', ':lo': 'b' },
        Key: { pk: 'a', sk: 'b' },
      }),
    ).toBeUndefined();
  });
});
