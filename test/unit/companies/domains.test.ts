import { describe, expect, it } from 'vitest';
import { businessDomainOf, isFreeMailDomain } from '#shared/domain/companies/domains.ts';
import { matchesCompany } from '#shared/domain/companies/service.ts';

describe('business domains', () => {
  it('is the lower-cased domain of an address on a company domain', () => {
    expect(businessDomainOf('Ana@Acme.Example')).toBe('acme.example');
    expect(businessDomainOf('a.b+c@sub.acme.co.uk')).toBe('sub.acme.co.uk');
  });

  it('is null for free mail (and its country variants), blanks and malformed addresses', () => {
    for (const e of [
      'x@gmail.com',
      'x@hotmail.fr',
      'x@yahoo.co.uk',
      'x@outlook.com.br',
      'x@proton.me',
      null,
      undefined,
      '',
      'nobody',
      '@acme.io',
      'a@localhost',
    ]) {
      expect(businessDomainOf(e)).toBeNull();
    }
    expect(isFreeMailDomain('acme.com')).toBe(false);
    expect(isFreeMailDomain('hotmail.com')).toBe(true);
  });
});

describe('company search match', () => {
  it('finds the term anywhere in the name or domain, case-insensitively', () => {
    const c = { name: 'Acme Rockets', domain: 'acme-rockets.io' };
    expect(matchesCompany(c, 'ROCK')).toBe(true);
    expect(matchesCompany(c, ' rockets.io ')).toBe(true);
    expect(matchesCompany(c, 'zeta')).toBe(false);
    expect(matchesCompany({ name: 'No Domain', domain: null }, 'domain')).toBe(true);
  });
});
