import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toJsonSchema } from '@valibot/to-json-schema';
import { ROOT } from '../infra/build.ts';
import { DEFAULT_ROUTE, functionName, methodsOf, routes, stackGroup, type Route } from '../infra/routes.ts';
import type { RequestDocs } from '#shared/http/handler.ts';
import type { AnySchema } from '#shared/validate.ts';

// The OpenAPI 3.1 document of the whole service (`npm run docs` writes it to openapi.json, the service
// serves it at GET /api/openapi.json). Paths, methods and path parameters come from the route table;
// query parameters from the valibot schema a row names (`query`); request bodies from the one each handler module
// declares (`body`, `rootKey`, `multipart` of shared/http/handler.ts, read from the handler's `docs`). Responses
// are described generically: Chatwoot's JSON on success, the error body on failure.
//
// Importing the ~200 handler modules takes about 2 s (measured); nothing else needs them at docs time.

export const OPENAPI_FILE = join(ROOT, 'openapi.json');

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 of what a client sends (the input side: before trims and transforms). */
function jsonSchemaOf(schema: AnySchema): Json {
  const out = toJsonSchema(schema, { target: 'draft-2020-12', typeMode: 'input', errorMode: 'ignore' }) as Json;
  delete out.$schema;
  return out;
}

const WEBSITE_TOKEN = {
  name: 'website_token',
  in: 'query',
  required: false,
  description: "The web widget inbox's website token (or in the body).",
  schema: { type: 'string' },
};

const NUMERIC_PARAMS = new Set(['account_id', 'conversation_id', 'message_id', 'inbox_id', 'team_id']);

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: NUMERIC_PARAMS.has(name) ? { type: 'integer', minimum: 1 } : { type: 'string' },
  }));
}

function queryParameters(schema: Json): Json[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    return { name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/** Who may call a route: the headers its interface authenticates by. */
function securityOf(r: Route): Json[] | undefined {
  const p = r.path;
  if (p.startsWith('/platform/')) return [{ platformToken: [] }];
  if (p.startsWith('/api/v1/widget/')) return [{ widgetToken: [] }, {}];
  if (p === '/auth/validate_token' || p === '/auth/sign_out') return [{ accessToken: [], client: [], uid: [] }];
  if (p.startsWith('/api/v1/')) return [{ userToken: [] }, { accessToken: [], client: [], uid: [] }];
  return undefined;
}

/** Success content of the routes that answer something else than JSON. */
const NON_JSON: Record<string, string> = {
  'functions/system/widget/sdk.ts': 'text/javascript',
  'functions/system/widget/page.ts': 'text/html',
  'functions/system/widget/demo.ts': 'text/html',
  'functions/system/widget/asset.ts': '*/*',
  'functions/system/help-center/home.ts': 'text/html',
  'functions/system/help-center/category.ts': 'text/html',
  'functions/system/help-center/article.ts': 'text/html',
  'functions/system/help-center/search.ts': 'text/html',
  'functions/system/help-center/sitemap.ts': 'application/xml',
};

/** Routes that answer a redirect instead. */
const REDIRECTS: Record<string, string> = {
  'functions/system/files/redirect.ts':
    'Redirect to a short-lived presigned URL of the file (Location); 404 for a link that is not signed, expired, renamed, or whose file was deleted.',
  'functions/system/help-center/portal.ts': "Redirect to the portal's default locale (Location); 404 for an unknown or archived portal.",
};

const ERROR_BODY = {
  type: 'object',
  required: ['description', 'errors'],
  properties: {
    description: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message', 'code'],
        properties: { field: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } },
      },
    },
  },
};

async function docsOf(r: Route): Promise<RequestDocs | undefined> {
  const mod = await import(pathToFileURL(join(ROOT, r.handler)).href);
  return (mod.handler as { docs?: RequestDocs }).docs;
}

const pascal = (s: string) => s.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase());

export async function buildOpenApi(): Promise<Json> {
  // Handler modules size their body limit from the configuration when loaded; any table name will do.
  process.env.TABLE_NAME ??= 'openapi';
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const components: Record<string, Json> = { ErrorBody: ERROR_BODY };
  const named = new Map<AnySchema, string>();
  const ref = (schema: AnySchema, name: string) => {
    let n = named.get(schema);
    if (!n) {
      n = name;
      named.set(schema, n);
      components[n] = jsonSchemaOf(schema);
    }
    return { $ref: `#/components/schemas/${n}` };
  };

  const paths: Record<string, Json> = {};
  for (const r of routes) {
    if (r.path === DEFAULT_ROUTE) continue;
    const docs = await docsOf(r);
    const methods = methodsOf(r);
    for (const method of methods) {
      const fn = functionName(r);
      const parameters = [...pathParameters(r.path)];
      if (r.query) parameters.push(...queryParameters(jsonSchemaOf(r.query)));
      // The widget's API reads the inbox's website_token from the query string (as the widget sends it) or the body.
      if (r.path.startsWith('/api/v1/widget/') && !parameters.some((p) => p.name === 'website_token')) parameters.push(WEBSITE_TOKEN);
      const op: Json = {
        operationId: methods.length > 1 ? `${fn}-${method.toLowerCase()}` : fn,
        summary: `${method} ${r.path}`,
        description: `Handler \`${r.handler}\` (function ${fn}), access class ${r.access}.`,
        tags: [stackGroup(r)],
      };
      if (docs?.body && method === 'GET') {
        // A GET's fields come from the query string (Rails `params`).
        parameters.push(...queryParameters(jsonSchemaOf(docs.body)));
      } else if (docs?.body) {
        const body = ref(docs.body, `${pascal(fn)}Body`);
        // Chatwoot nests a body under its model key; both that and top-level fields are accepted.
        const schema = docs.rootKey
          ? { anyOf: [body, { type: 'object', required: [docs.rootKey], properties: { [docs.rootKey]: body } }] }
          : body;
        op.requestBody = {
          required: true,
          content: {
            'application/json': { schema },
            ...(docs.multipart ? { 'multipart/form-data': { schema } } : {}),
          },
        };
      }
      if (parameters.length) op.parameters = parameters;
      const security = securityOf(r);
      if (security) op.security = security;
      const type = NON_JSON[r.handler];
      const redirect = REDIRECTS[r.handler];
      op.responses = {
        ...(redirect
          ? { '302': { description: redirect, headers: { Location: { required: true, schema: { type: 'string', format: 'uri' } } } } }
          : {
              // 200 mostly, 204 where Chatwoot answers no content.
              '2XX': {
                description: type ? 'The document or file.' : "Success: Chatwoot's JSON for this resource (none with 204).",
                content: { [type ?? 'application/json']: { schema: {} } },
              },
            }),
        '4XX': { $ref: '#/components/responses/Error' },
      };
      ((paths[r.path] ??= {}) as Json)[method.toLowerCase()] = op;
    }
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'chatwoot-serverless',
      version: pkg.version,
      description:
        "Chatwoot-compatible customer messaging API: the account, platform and public interfaces, the web widget's API and the service's own routes. Generated from infra/routes.ts and the handlers' valibot schemas by `npm run docs`; any path not listed answers 404 with the error body.",
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start (the deployed service serves this document with its own address)' }],
    tags: [...new Set(routes.filter((r) => r.path !== DEFAULT_ROUTE).map(stackGroup))].map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      responses: {
        Error: {
          description: 'Refused: the error body.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
        },
      },
      securitySchemes: {
        userToken: {
          type: 'apiKey',
          in: 'header',
          name: 'api_access_token',
          description: "A user's or agent bot's access token (also `Authorization: Bearer`).",
        },
        platformToken: { type: 'apiKey', in: 'header', name: 'api_access_token', description: "A platform app's access token." },
        accessToken: {
          type: 'apiKey',
          in: 'header',
          name: 'access-token',
          description: 'devise_token_auth session (with client and uid), from POST /auth/sign_in.',
        },
        client: { type: 'apiKey', in: 'header', name: 'client' },
        uid: { type: 'apiKey', in: 'header', name: 'uid' },
        widgetToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Auth-Token',
          description: "The web widget visitor's token, from POST /api/v1/widget/config.",
        },
      },
    },
  };
}

/** The file's text: stable key order as built, two-space indent, trailing newline. */
export const renderOpenApi = (doc: Json) => `${JSON.stringify(doc, null, 2)}\n`;
