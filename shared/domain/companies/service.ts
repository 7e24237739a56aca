import { nextId } from '#shared/db/ids.ts';
import * as repo from '#shared/db/repositories/companies.ts';
import { getContact, saveContact } from '#shared/db/repositories/contacts.ts';
import { retryStale } from '#shared/db/repositories/versioned.ts';
import { invalidField, notFound } from '#shared/errors.ts';
import type { CompanyRecord } from '#shared/model/contacts.ts';
import { now } from '#shared/model/time.ts';
import type { CompanyUpdate, NewCompany } from './schemas.ts';
import { companyJson } from './view.ts';
import { pageNumber } from '../paging.ts';

// Companies (Chatwoot's enterprise CompaniesController): any member lists, shows, searches, creates and updates
// them; administrators delete them (contacts keep living, unlinked). A new contact whose email is on a company's
// business domain is linked to it and counted (shared/domain/contacts/service.ts `createContact`).

export const COMPANIES_PER_PAGE = 25;

const SORTS: Record<string, (a: CompanyRecord, b: CompanyRecord) => number> = {
  name: (a, b) => a.name.localeCompare(b.name),
  domain: (a, b) => (a.domain ?? '\uffff').localeCompare(b.domain ?? '\uffff'),
  created_at: (a, b) => a.created_at - b.created_at,
  contacts_count: (a, b) => a.contacts_count - b.contacts_count,
};

/** `sort=name|-name|domain|created_at|contacts_count` (a leading `-`: descending); by name when absent or unknown. */
function sorted(all: CompanyRecord[], sort: string | undefined) {
  const desc = sort?.startsWith('-') ?? false;
  const by = SORTS[(sort ?? 'name').replace(/^-/, '')] ?? SORTS.name!;
  return [...all].sort((a, b) => (desc ? -1 : 1) * by(a, b) || a.id - b.id);
}

const paged = (all: CompanyRecord[], page: number) =>
  all.slice((page - 1) * COMPANIES_PER_PAGE, page * COMPANIES_PER_PAGE).map(companyJson);

/** `GET /companies`: `{meta: {total_count, page}, payload}`, 25 a page. */
export async function listCompanies(accountId: number, query: Record<string, string>) {
  const page = pageNumber(query.page);
  const all = sorted(await repo.listCompanies(accountId), query.sort);
  return { meta: { total_count: all.length, page }, payload: paged(all, page) };
}

/** Chatwoot's `search_by_name_or_domain`: the term anywhere in the name or domain, case-insensitive. */
export const matchesCompany = (c: Pick<CompanyRecord, 'name' | 'domain'>, term: string) => {
  const t = term.trim().toLowerCase();
  return c.name.toLowerCase().includes(t) || (c.domain ?? '').toLowerCase().includes(t);
};

/** `GET /companies/search?q=`: `{meta: {count, current_page}, payload}`; without `q`, 422. */
export async function searchCompanies(accountId: number, query: Record<string, string>) {
  const q = query.q?.trim();
  if (!q) throw invalidField('q', 'Specify search string with parameter q', 'blank');
  const page = pageNumber(query.page);
  const all = sorted(
    (await repo.listCompanies(accountId)).filter((c) => matchesCompany(c, q)),
    query.sort,
  );
  return { meta: { count: all.length, current_page: page }, payload: paged(all, page) };
}

async function requireCompany(accountId: number, id: number, consistent = false) {
  const c = await repo.getCompany(accountId, id, consistent);
  if (!c) throw notFound('Company');
  return c;
}

export async function showCompany(accountId: number, id: number) {
  return { payload: companyJson(await requireCompany(accountId, id)) };
}

export async function createCompany(accountId: number, input: NewCompany) {
  const t = now();
  const c: CompanyRecord = {
    id: await nextId('company'),
    account_id: accountId,
    name: input.name,
    domain: input.domain ?? null,
    description: input.description ?? null,
    contacts_count: 0,
    created_at: t,
    updated_at: t,
    version: 1,
  };
  await repo.saveCompany(undefined, c);
  return { payload: companyJson(c) };
}

export async function updateCompany(accountId: number, id: number, input: CompanyUpdate) {
  return retryStale(async (consistent) => {
    const before = await requireCompany(accountId, id, consistent);
    const after: CompanyRecord = {
      ...before,
      name: input.name ?? before.name,
      domain: input.domain !== undefined ? input.domain : before.domain,
      description: input.description !== undefined ? input.description : before.description,
      updated_at: now(),
      version: before.version + 1,
    };
    await repo.saveCompany(before, after);
    return { payload: companyJson(after) };
  });
}

/** Administrators only. Its contacts stay, unlinked (Chatwoot's `dependent: :nullify`), then the company goes. */
export async function deleteCompany(accountId: number, id: number): Promise<void> {
  const company = await requireCompany(accountId, id, true);
  for (;;) {
    const ids = await repo.companyContactIds(accountId, id);
    if (!ids.length) break;
    for (const contactId of ids) {
      await retryStale(async () => {
        const before = await getContact(accountId, contactId, true);
        if (before && before.company_id === id) {
          await saveContact(before, { ...before, company_id: null, updated_at: now(), version: before.version + 1 });
        }
      });
      await repo.dropCompanyLink(accountId, id, contactId);
    }
  }
  await retryStale(async (consistent) => repo.deleteCompany(consistent ? await requireCompany(accountId, id, true) : company));
}
