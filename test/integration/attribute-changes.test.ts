import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '#shared/db/client.ts';
import * as keys from '#shared/db/keys.ts';
import { getItem } from '#shared/db/repositories/common.ts';
import { applyChanges, StaleWrite } from '#shared/db/repositories/versioned.ts';
import { runtime } from '../support/runtime.ts';

// applyChanges against DynamoDB Local: merges into maps that are missing or null, never creates an
// absent item, and reports a failed caller condition as a lost race.

let next = 9_000_000_000 + Math.floor(Math.random() * 1_000_000);
const freshKey = () => keys.user(next++);

describe('applyChanges', () => {
  beforeAll(async () => {
    await runtime();
  });

  it('merges into a map the item does not have yet, or that is null, keeping other keys', async () => {
    for (const initial of [{}, { custom_attributes: null }, { custom_attributes: { keep: 1 } }]) {
      const key = freshKey();
      await db().send(new PutCommand({ TableName: tableName(), Item: { ...key, name: 'x', ...initial } }));
      const out = await applyChanges<Record<string, unknown>>(key, { set: { name: 'y' }, merge: { custom_attributes: { added: 'v' } } });
      const expected = { ...(initial.custom_attributes ?? {}), added: 'v' };
      expect(out).toMatchObject({ name: 'y', custom_attributes: expected, version: 1 });
      expect(await getItem(key, true)).toMatchObject({ custom_attributes: expected });
    }
  });

  it('leaves an absent item absent', async () => {
    const key = freshKey();
    expect(await applyChanges(key, { set: { name: 'ghost' }, merge: { custom_attributes: { a: 1 } } })).toBeUndefined();
    expect(await getItem(key, true)).toBeUndefined();
  });

  it('throws StaleWrite when the caller’s condition does not hold, and changes nothing', async () => {
    const key = freshKey();
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...key, name: 'a', version: 4 } }));
    await expect(
      applyChanges(key, { set: { name: 'b' }, condition: { expression: 'version = :v', values: { ':v': 3 } } }),
    ).rejects.toBeInstanceOf(StaleWrite);
    expect(await getItem(key, true)).toMatchObject({ name: 'a', version: 4 });
    expect(await applyChanges(key, { set: { name: 'b' }, condition: { expression: 'version = :v', values: { ':v': 4 } } })).toMatchObject({
      name: 'b',
      version: 5,
    });
  });
});
