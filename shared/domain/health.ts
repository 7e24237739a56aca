import { getItem } from '../db/repositories/common.ts';
import { keys } from '../db/keys.ts';

/** Health: the table answers a read. */
export async function checkStorage() {
  await getItem(keys.sequence('health'));
  return { status: 'ok' };
}
