import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, type Method, methodsOf, routes } from '../../../infra/routes.ts';

// Every operation of the hand-written n8n node RenatoAscencio/n8n-nodes-chatwoot, as of its commit
// cee8463bbbb0c7770460d049a95e0a78b92f2f8c (v0.8.3), walked against the route table: each must reach a route of ours. test/fixtures/n8n/renato-operations.json is
// written from the node's source: one entry per operation its resources offer (nodes/Chatwoot/resources/*/index.ts),
// with the method and path its execute code in nodes/Chatwoot/Chatwoot.node.ts sends, each helper's base prefixed
// as nodes/Chatwoot/GenericFunctions.ts does (`/api/v1/accounts/{account_id}`, `/api/v2/accounts/{account_id}`,
// `/platform/api/v1`, `/public/api/v1`) and `{…}` for each value the node interpolates. A value segment matches a
// `{param}` segment of a route, a literal only the same literal; query strings are not part of a path. Three
// entries are not a plain helper call: message.getAll pages GET …/conversations/{id}/messages through
// chatwootApiRequestAllMessages, contact.import posts its CSV to …/contacts/import with httpRequest itself, and the
// summaryReport operations each name their path's last segment (`/summary_reports/${operation}`).

interface Operation {
  resource: string;
  operation: string;
  method: Exclude<Method, 'ANY'>;
  path: string;
}

const OPERATIONS: Operation[] = JSON.parse(readFileSync(new URL('../../fixtures/n8n/renato-operations.json', import.meta.url), 'utf8'));

/**
 * The node's own path bugs: operations calling a path Chatwoot itself does not route (config/routes.rb), so a 404 is
 * Chatwoot's answer too. Each is expected NOT to match a route; one that starts matching is no longer a bug to list.
 */
const NODE_PATH_BUGS: Record<string, string> = {
  'inbox.addAgent':
    'POST /inbox_members/{inbox_id}: Chatwoot routes inbox_members create on the collection (POST /inbox_members, inbox_id in the body)',
  'inbox.deleteAgent':
    'DELETE /inbox_members/{inbox_id}: Chatwoot routes inbox_members destroy on the collection (DELETE /inbox_members, inbox_id in the body)',
  'profile.fetch': 'GET /api/v1/accounts/{account_id}/profile: the profile is not account-scoped, it is /api/v1/profile',
  'profile.update': 'PUT /api/v1/accounts/{account_id}/profile: the profile is not account-scoped, it is /api/v1/profile',
  'profile.availability':
    'POST /api/v1/accounts/{account_id}/profile/availability: the profile is not account-scoped, it is /api/v1/profile/availability',
  'accountAgentBot.getAll': 'the platform API has agent_bots at /platform/api/v1/agent_bots only, not under an account',
  'accountAgentBot.get': 'the platform API has agent_bots at /platform/api/v1/agent_bots/{id} only, not under an account',
  'accountAgentBot.create': 'the platform API has agent_bots at /platform/api/v1/agent_bots only, not under an account',
  'accountAgentBot.update': 'the platform API has agent_bots at /platform/api/v1/agent_bots/{id} only, not under an account',
  'accountAgentBot.delete': 'the platform API has agent_bots at /platform/api/v1/agent_bots/{id} only, not under an account',
};

/**
 * Routes Chatwoot has (config/routes.rb) that the table does not have yet: the node's calls to them miss for now.
 * One that starts matching has been built; take it out of here.
 */
const NOT_BUILT: Record<string, string> = {};

const isParam = (segment: string) => /^\{[^}]+\}$/.test(segment);
const segments = (path: string) => path.split('?')[0].split('/').filter(Boolean);

/** Whether a node call reaches `route`: same method, and segment by segment a value meets a `{param}`, a literal itself. */
function reaches(op: Operation, route: (typeof routes)[number]): boolean {
  if (route.path === DEFAULT_ROUTE || !methodsOf(route).includes(op.method)) return false;
  const call = segments(op.path);
  const template = segments(route.path);
  return call.length === template.length && call.every((s, i) => (isParam(s) ? isParam(template[i]) : s === template[i]));
}

const key = (op: Operation) => `${op.resource}.${op.operation}`;

describe('n8n node RenatoAscencio/n8n-nodes-chatwoot: every operation against the route table', () => {
  it('has one well-formed entry per operation', () => {
    expect(OPERATIONS.length).toBe(206);
    expect(new Set(OPERATIONS.map(key)).size).toBe(OPERATIONS.length);
    for (const op of OPERATIONS) {
      expect(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']).toContain(op.method);
      expect(op.path).toMatch(
        /^\/(api\/v[12]\/accounts\/\{account_id\}|platform\/api\/v1|public\/api\/v1\/inboxes\/\{inbox_identifier\})(\/|$)/,
      );
    }
    for (const listed of [...Object.keys(NODE_PATH_BUGS), ...Object.keys(NOT_BUILT)]) expect(OPERATIONS.map(key)).toContain(listed);
  });

  it('finds a route for every operation but the node’s own path bugs and the routes not built yet', () => {
    const listed = (op: Operation) => NODE_PATH_BUGS[key(op)] ?? NOT_BUILT[key(op)];
    const missing = OPERATIONS.filter((op) => !listed(op) && !routes.some((r) => reaches(op, r))).map(
      (op) => `${key(op)}: ${op.method} ${op.path}`,
    );
    expect(missing).toEqual([]);
  });

  it('finds no route for the node’s own path bugs, nor yet for the routes not built', () => {
    const routed = OPERATIONS.filter((op) => (NODE_PATH_BUGS[key(op)] ?? NOT_BUILT[key(op)]) && routes.some((r) => reaches(op, r))).map(
      key,
    );
    expect(routed).toEqual([]);
    expect(OPERATIONS.length - Object.keys(NODE_PATH_BUGS).length - Object.keys(NOT_BUILT).length).toBe(196);
  });

  it('matches a value only to a parameter, and a literal only to itself', () => {
    const route = { method: 'GET', path: '/api/v1/accounts/{account_id}/conversations/{conversation_id}' } as (typeof routes)[number];
    const op = (method: Operation['method'], path: string): Operation => ({ resource: 'r', operation: 'o', method, path });
    expect(reaches(op('GET', '/api/v1/accounts/{account_id}/conversations/{id}'), route)).toBe(true);
    expect(reaches(op('GET', '/api/v1/accounts/{account_id}/conversations/{id}?page=2'), route)).toBe(true);
    expect(reaches(op('GET', '/api/v1/accounts/{account_id}/conversations/meta'), route)).toBe(false);
    expect(reaches(op('POST', '/api/v1/accounts/{account_id}/conversations/{id}'), route)).toBe(false);
    expect(reaches(op('GET', '/api/v1/{account_id}/{id}/conversations/{id}'), route)).toBe(false);
    expect(reaches(op('GET', '/api/v1/accounts/{account_id}/conversations'), route)).toBe(false);
  });
});
