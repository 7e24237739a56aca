// Which email domains name a business: Chatwoot links a new contact to the company whose `domain` is its email's
// domain, never through a free-mail provider's domain (everyone's address there, no company's).

const FREE_MAIL = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'msn.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'protonmail.com',
  'proton.me',
  'pm.me',
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'zoho.com',
  'qq.com',
  '163.com',
  '126.com',
  'tutanota.com',
  'fastmail.com',
  'hey.com',
]);

/** Country variants of the big providers (yahoo.co.uk, hotmail.fr, outlook.com.br, …). */
const FREE_MAIL_FAMILY = /^(yahoo|hotmail|outlook|live|gmx|yandex|aol)\.[a-z.]{2,6}$/;

export const isFreeMailDomain = (domain: string) => FREE_MAIL.has(domain) || FREE_MAIL_FAMILY.test(domain);

/** The business domain of an email address (lower-cased), or null: no address, no domain, or free mail. */
export function businessDomainOf(email: string | null | undefined): string | null {
  const at = email?.lastIndexOf('@') ?? -1;
  if (!email || at < 1) return null;
  const domain = email
    .slice(at + 1)
    .trim()
    .toLowerCase();
  if (!domain.includes('.') || isFreeMailDomain(domain)) return null;
  return domain;
}
