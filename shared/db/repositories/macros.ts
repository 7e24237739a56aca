import * as keys from '../keys.ts';
import { transact } from '../transact.ts';
import type { MacroRecord } from '#shared/model/macros.ts';
import { getItem, queryPrefix, record } from './common.ts';
import { versionedDel, versionedPut } from './versioned.ts';

/** AP130: a macro of an account. */
export const getMacro = (accountId: number, id: number, consistent = false) => getItem<MacroRecord>(keys.macro(accountId, id), consistent);

/** AP131: the macros of an account, by id (visibility is filtered by the service). */
export async function listMacros(accountId: number): Promise<MacroRecord[]> {
  const p = keys.macrosOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<MacroRecord>(i)!);
}

const macroItem = (m: MacroRecord) => ({ ...keys.macro(m.account_id, m.id), type: 'macro', ...m });

export async function saveMacro(before: MacroRecord | undefined, after: MacroRecord): Promise<void> {
  await transact([versionedPut(macroItem(after), before?.version)]);
}

export async function deleteMacro(m: MacroRecord): Promise<void> {
  await transact([versionedDel(keys.macro(m.account_id, m.id), m.version)]);
}
