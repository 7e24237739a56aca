import * as keys from '../keys.ts';
import { ConflictError, del, put, transact, type TxItem } from '../transact.ts';
import type { CompanyRecord } from '#shared/model/contacts.ts';
import { taken } from '#shared/errors.ts';
import { getItem, queryPrefix, queryItems, record } from './common.ts';
import { StaleWrite, versionedDel, versionedPut } from './versioned.ts';

// Access patterns of companies: an account's companies in one partition, a domain sentinel per company with a
// domain (the business-domain lookup of a new contact), and each company's contact links.

export const getCompany = (accountId: number, id: number, consistent = false) =>
  getItem<CompanyRecord>(keys.company(accountId, id), consistent);

/** Every company of an account (lists sort and filter these in memory, as the canned responses do). */
export async function listCompanies(accountId: number): Promise<CompanyRecord[]> {
  const p = keys.companiesOf(accountId);
  return (await queryPrefix({ pk: p.pk }, p.skPrefix)).map((i) => record<CompanyRecord>(i)!);
}

/** The company whose business domain this is (lower-cased), by its sentinel. */
export const findCompanyIdByDomain = async (accountId: number, domain: string) =>
  (await getItem<{ owner_id: number }>(keys.companyDomainUnique(accountId, domain)))?.owner_id;

const item = (c: CompanyRecord) => ({ ...keys.company(c.account_id, c.id), type: 'company', ...c });

/**
 * Writes a company (new when `before` is undefined), moving its domain's sentinel; `contacts_count` is left to
 * the contact links (the write keeps the stored count: it is the one field not written from `after`).
 */
export async function saveCompany(before: CompanyRecord | undefined, after: CompanyRecord): Promise<void> {
  const items: TxItem[] = [];
  if (before) {
    const { contacts_count: _count, ...fields } = item(after);
    const names = Object.keys(fields).filter((k) => k !== 'pk' && k !== 'sk');
    items.push({
      item: {
        Update: {
          TableName: '',
          Key: keys.company(after.account_id, after.id),
          UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'version = :before',
          ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
          ExpressionAttributeValues: {
            ...Object.fromEntries(names.map((n, i) => [`:v${i}`, fields[n as keyof typeof fields]])),
            ':before': before.version,
          },
        },
      },
      onConflict: () => new StaleWrite(),
    });
  } else items.push(versionedPut(item(after)));
  if (before?.domain !== after.domain) {
    if (before?.domain) items.push({ item: del(keys.companyDomainUnique(after.account_id, before.domain)) });
    if (after.domain) {
      items.push({
        item: put({ ...keys.companyDomainUnique(after.account_id, after.domain), type: 'unique', owner_id: after.id }, { ifNew: true }),
        onConflict: () => taken('domain'),
      });
    }
  }
  await transact(items);
}

/** The company and its domain sentinel; its contacts are unlinked first (the domain's `deleteCompany`). */
export async function deleteCompany(c: CompanyRecord): Promise<void> {
  await transact([
    versionedDel(keys.company(c.account_id, c.id), c.version),
    ...(c.domain ? [{ item: del(keys.companyDomainUnique(c.account_id, c.domain)) }] : []),
  ]);
}

/** What links a new contact to a company, for the contact's own transaction: the link and the company's count. */
export function companyLinkItems(accountId: number, companyId: number, contactId: number): TxItem[] {
  return [
    { item: put({ ...keys.companyContact(accountId, companyId, contactId), type: 'company_contact', contact_id: contactId }) },
    {
      item: {
        Update: {
          TableName: '',
          Key: keys.company(accountId, companyId),
          UpdateExpression: 'ADD contacts_count :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
        },
      },
      onConflict: () => new StaleWrite(),
    },
  ];
}

/** Removes one contact's link and counts it out, once (the link must still be there). */
export async function unlinkCompanyContact(accountId: number, companyId: number, contactId: number): Promise<void> {
  try {
    await transact([
      {
        item: del(keys.companyContact(accountId, companyId, contactId), { expression: 'attribute_exists(pk)' }),
        onConflict: () => new StaleWrite(),
      },
      {
        item: {
          Update: {
            TableName: '',
            Key: keys.company(accountId, companyId),
            UpdateExpression: 'ADD contacts_count :minus',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':minus': -1 },
          },
        },
      },
    ]);
  } catch (err) {
    if (!(err instanceof StaleWrite) && !(err instanceof ConflictError)) throw err;
  }
}

/** Up to `limit` contact ids linked to a company. */
export async function companyContactIds(accountId: number, companyId: number, limit = 100): Promise<number[]> {
  const items = await queryItems(
    { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': keys.companyContactsPartition(accountId, companyId) } },
    limit,
  );
  return items.map((i) => Number(i.contact_id));
}

/** Removes a link without touching the count (the company is going). */
export const dropCompanyLink = (accountId: number, companyId: number, contactId: number) =>
  transact([{ item: del(keys.companyContact(accountId, companyId, contactId)) }]);
