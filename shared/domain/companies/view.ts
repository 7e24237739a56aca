import type { CompanyRecord } from '#shared/model/contacts.ts';

const iso = (t: number) => new Date(t * 1000).toISOString();

/** Chatwoot's company partial. */
export const companyJson = (c: CompanyRecord) => ({
  id: c.id,
  name: c.name,
  contacts_count: c.contacts_count,
  domain: c.domain,
  description: c.description,
  avatar_url: '',
  created_at: iso(c.created_at),
  updated_at: iso(c.updated_at),
});
