import type { AccountRecord } from '#shared/model/identity.ts';

/** Platform Account JSON (docs/chatwoot.md#platform-accounts): features lists the enabled ones only. */
export function accountJson(a: AccountRecord) {
  return {
    id: a.id,
    name: a.name,
    locale: a.locale,
    domain: a.domain,
    support_email: a.support_email,
    status: a.status,
    limits: a.limits,
    custom_attributes: a.custom_attributes,
    features: Object.fromEntries(
      Object.entries(a.features)
        .filter(([, on]) => on)
        .map(([k]) => [k, true]),
    ),
    created_at: a.created_at,
  };
}
