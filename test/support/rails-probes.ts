import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as v from 'valibot';
import { DEFAULT_ROUTE, routes, type Route } from '../../infra/routes.ts';
import { ROOT } from '../../infra/build.ts';
import type { RequestDocs } from '#shared/http/handler.ts';
import type { AnySchema } from '#shared/validate.ts';

// The probes of Rails' parameter reading (docs/chatwoot.md#rails-parameters), generated from the route table: every
// optional field of every route's body schema, sent `""`, `null`, a numeric string (fields that take numbers), `0`
// (ids) and `"true"` (booleans); and the answers Chatwoot gives that are refusals. The unit test reads them through
// the schemas, an e2e test sends them over HTTP.

/**
 * Where Chatwoot refuses a probe too (a 4xx): `""` in the text fields its models validate for presence or format
 * (names, titles, contents, keys, a webhook's url, a user's email and password on the platform, help-center slugs
 * and locales), by field name; and
 * the few exact cases, as `METHOD path field=probe`. Every other optional field takes every probe.
 */
const BLANK_REFUSED_FIELDS = new Set([
  'name',
  'title',
  'message',
  'content',
  'short_code',
  'attribute_display_name',
  'attribute_key',
  'url',
  'email',
  'password',
  // Help center: portals and categories validate their slug's presence, categories and articles have a locale.
  'slug',
  'locale',
]);
const CHATWOOT_REFUSES = new Set([
  // Web push subscriptions: a blank endpoint or key can never be pushed to (Chatwoot stores it and fails later).
  ...['endpoint', 'p256dh', 'auth', 'push_token', 'device_id'].map(
    (k) => `POST /api/v1/notification_subscriptions subscription_attributes.${k}=""`,
  ),
  // A blank time zone: working hours could not be read. Refused here; whether Chatwoot's inbox takes it is unchecked.
  'POST /api/v1/accounts/{account_id}/inboxes timezone=""',
  'PATCH|PUT /api/v1/accounts/{account_id}/inboxes/{id} timezone=""',
  // Without inbox_id and contact_id a conversation is found by its source id: blank finds none (Chatwoot's find_by!).
  'POST /api/v1/accounts/{account_id}/conversations source_id=""',
  'POST /api/v1/accounts/{account_id}/conversations source_id=null',
  // A portal's default locale names the pages' language and redirect: blank is refused here (Chatwoot's config check
  // only names the allowed keys).
  'POST /api/v1/accounts/{account_id}/portals config.default_locale=""',
  'PATCH|PUT /api/v1/accounts/{account_id}/portals/{id} config.default_locale=""',
  // An upload without a file (and no external_url), an import without a file: Chatwoot answers 422 too ("No file or URL
  // provided", "File is blank").
  'POST /api/v1/accounts/{account_id}/upload attachment=""',
  'POST /api/v1/accounts/{account_id}/upload attachment=null',
  'POST /api/v1/accounts/{account_id}/contacts/import import_file=""',
  'POST /api/v1/accounts/{account_id}/contacts/import import_file=null',
]);
export const refusedByChatwoot = (name: string, field: string, probe: Probe) =>
  CHATWOOT_REFUSES.has(name) || (probe.name === '""' && BLANK_REFUSED_FIELDS.has(field));

export type Probe = { name: string; value: unknown };
type Wrapped = { wrapped?: Wrapped; entries?: Record<string, AnySchema>; pipe?: { kind: string }[]; type: string };

/** The object entries of a body schema (through wrappers and a record checked as an object). */
export function entriesOf(schema: AnySchema): Record<string, AnySchema> | undefined {
  let s = schema as unknown as Wrapped;
  while (s.wrapped) s = s.wrapped;
  if (s.entries) return s.entries;
  for (const step of s.pipe?.slice(1) ?? []) {
    const found = step.kind === 'schema' ? entriesOf(step as unknown as AnySchema) : undefined;
    if (found) return found;
  }
  return undefined;
}

function probesOf(field: AnySchema): Probe[] {
  const probes: Probe[] = [
    { name: '""', value: '' },
    { name: 'null', value: null },
  ];
  if (v.is(field, 7) || v.is(field, 1.5)) probes.push({ name: 'numeric string', value: v.is(field, 7) ? '7' : '1.5' });
  if (v.is(field, 1) && !v.is(field, 0)) probes.push({ name: '0', value: 0 });
  if (v.is(field, true)) probes.push({ name: '"true"', value: 'true' });
  return probes;
}

export interface Case {
  route: string;
  path: string[];
  field: AnySchema;
  probe: Probe;
}

/** Every optional field (nested objects' too), with its probes. */
export function casesOf(route: string, entries: Record<string, AnySchema>, prefix: string[] = []): Case[] {
  return Object.entries(entries).flatMap(([key, field]) => {
    const path = [...prefix, key];
    const nested = entriesOf(field);
    const own = v.is(field, undefined) ? probesOf(field).map((probe) => ({ route, path, field, probe })) : [];
    return nested ? [...own, ...casesOf(route, nested, path)] : own;
  });
}

export const bodyOf = (path: string[], value: unknown): Record<string, unknown> =>
  path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Record<string, unknown>;

export const at = (o: unknown, path: string[]) =>
  path.reduce<unknown>((x, k) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined), o);

export interface RouteSchema {
  route: Route;
  /** `METHOD|METHOD path`, as the cases name it. */
  label: string;
  body: AnySchema;
}

/** Every route with a body schema (the handler's docs, as scripts/openapi.ts reads them). */
export async function routeSchemas(): Promise<RouteSchema[]> {
  // Importing a handler builds its chain, which reads the config.
  process.env.TABLE_NAME ??= 'rails-params';
  const out: RouteSchema[] = [];
  for (const route of routes) {
    if (route.path === DEFAULT_ROUTE) continue;
    const mod = await import(pathToFileURL(join(ROOT, route.handler)).href);
    const docs = (mod.handler as { docs?: RequestDocs }).docs;
    if (docs?.body) out.push({ route, label: `${[route.method].flat().join('|')} ${route.path}`, body: docs.body });
  }
  return out;
}
