import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { config } from '#shared/config.ts';
import { hashToken } from '#shared/crypto/tokens.ts';
import { log, logContext } from '#shared/log.ts';
import type { AccountRecord, UserRecord } from '#shared/model/identity.ts';
import {
  authenticateAccount,
  authenticatePlatform,
  authenticateUser,
  credentialOf,
  sessionCredentialsOf,
  type AccountAccess,
} from './auth.ts';
import type { Actor } from '#shared/model/actor.ts';
import { asWriter } from '#shared/db/audit-stamp.ts';
import { bodySizeLimit, parseBody, queryParams, type MultipartParser, type ParsedEvent } from './body.ts';
import { ServiceError, notFound } from '#shared/errors.ts';
import { errorResult } from './errors.ts';
import { enforceLimit, limitScope } from './limits.ts';
import { jsonResult, toHttp, type HttpResult } from './response.ts';
import { assertStorable } from './text.ts';
import type { AnySchema, BodySpec } from '#shared/validate.ts';
import { fileSigningReady } from '#shared/storage/file-urls.ts';

// The one middy chain every HTTP route goes through: body size → credential limit → auth (headers only) →
// account limit → body parsing → validation → run → JSON, and one place that turns failures into the error
// body. The body is parsed only for a caller who may call the route, so a malformed body from anyone else
// costs nothing. Limits (./limits.ts) answer 429 with Retry-After.

export interface RequestContext<B> {
  event: ParsedEvent;
  requestId: string;
  /** Path parameters as sent (strings); use `intParam` for ids. */
  params: Record<string, string>;
  query: Record<string, string>;
  body: B;
}

interface CommonOptions<S extends BodySpec | undefined> {
  /** The body's schema and parse (`bodyOf(Schema)`); its issues become the 422 body. */
  body?: S;
  /** Chatwoot nests bodies under a model key (`webhook: {...}`); both that and top-level fields are accepted. */
  rootKey?: string;
  maxBodyBytes?: number;
  multipart?: MultipartParser;
  /** The status of a success that answers nothing (204; Chatwoot's bodiless 200 is the default). */
  emptyStatus?: 204;
}

/** What a handler module tells the OpenAPI generator (scripts/openapi.ts) about its request. */
export interface RequestDocs {
  body?: AnySchema;
  rootKey?: string;
  /** Takes multipart/form-data besides JSON (attachments, avatars). */
  multipart?: boolean;
}

const bodyOptions = (opts: CommonOptions<BodySpec | undefined>) => ({
  maxBytes: opts.maxBodyBytes ?? config().maxBodyBytes,
  multipart: opts.multipart,
});

type BodyOf<S> = S extends BodySpec<infer T> ? v.InferOutput<T> : Record<string, unknown>;

async function contextOf<S extends BodySpec | undefined>(event: ParsedEvent, context: Context, opts: CommonOptions<S>) {
  // Views sign file links synchronously: the key is loaded before any route runs (started with the request,
  // beside authentication; a no-op once loaded). A failure to load fails only a view that signs a link.
  await fileSigningReady().catch(() => undefined);
  // Rails `params`: query-string fields count like body fields, and the body's win (the mobile app
  // assigns a team with `POST …/assignments?team_id=N` and no body).
  let body: Record<string, unknown> = {
    ...queryParams(event as unknown as APIGatewayProxyEventV2),
    ...(await parseBody(event as unknown as APIGatewayProxyEventV2, bodyOptions(opts))),
  };
  // Paths as sent (before the root key is merged); every route, whatever its schema.
  assertStorable(body);
  if (opts.rootKey) {
    const nested = body[opts.rootKey];
    if (nested && typeof nested === 'object' && !Array.isArray(nested)) {
      body = { ...body, ...(nested as Record<string, unknown>) };
      delete body[opts.rootKey];
    }
  }
  const parsed = opts.body ? opts.body.parse(body) : body;
  return {
    event,
    requestId: event.requestContext?.requestId ?? context.awsRequestId,
    params: (event.pathParameters ?? {}) as Record<string, string>,
    query: (event.queryStringParameters ?? {}) as Record<string, string>,
    body: parsed as BodyOf<S>,
  };
}

/** `/path/{id}` parameter as a positive integer, or 404 naming the resource. */
export function intParam(ctx: { params: Record<string, string> }, name: string, what = 'Resource'): number {
  const raw = ctx.params[name];
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) throw notFound(what);
  return Number(raw);
}

/** The credential's limit, by the hash of what it sends (token, or a session's access-token); none without one. */
async function limitCredential(event: ParsedEvent) {
  const e = event as unknown as APIGatewayProxyEventV2;
  const secret = credentialOf(e) ?? sessionCredentialsOf(e)?.accessToken;
  if (secret) await enforceLimit('credential', limitScope.token(hashToken(secret)));
}

function chain<S extends BodySpec | undefined>(opts: CommonOptions<S>, handle: (event: ParsedEvent, context: Context) => Promise<unknown>) {
  const base = async (event: APIGatewayProxyEventV2, context: Context): Promise<HttpResult> => {
    // Loading the file-link key (first request of a container) overlaps the credential's lookup.
    fileSigningReady().catch(() => undefined);
    return toHttp(await handle(event as unknown as ParsedEvent, context), opts.emptyStatus);
  };
  const handler = middy<APIGatewayProxyEventV2, HttpResult>()
    .use(logContext())
    .use(errorBoundary())
    .use(bodySizeLimit(bodyOptions(opts)))
    .handler(base);
  const docs: RequestDocs = { body: opts.body?.schema, rootKey: opts.rootKey, multipart: !!opts.multipart };
  return Object.assign(handler, { docs });
}

function errorBoundary(): middy.MiddlewareObj<APIGatewayProxyEventV2, HttpResult> {
  return {
    onError: async (request) => {
      const err = request.error;
      if (err instanceof ServiceError) {
        request.response = errorResult(err);
        return;
      }
      const requestId = request.event.requestContext?.requestId ?? request.context.awsRequestId;
      log.error('unhandled error', { requestId, route: request.event.routeKey, error: err });
      request.response = jsonResult(500, {
        description: 'Internal server error',
        errors: [{ field: '', message: `Something went wrong (request ${requestId})`, code: 'internal' }],
      });
    },
  };
}

// ── Account interface: /api/v1/accounts/{account_id}/… ────────────────────────────────────────────

export interface AccountContext<B> extends RequestContext<B> {
  account: AccountRecord;
  actor: Actor;
}

export function apiHandler<S extends BodySpec | undefined = undefined>(
  opts: CommonOptions<S> & {
    access: AccountAccess;
    /** Agent-bot tokens may call this route (Chatwoot's bot allow-list). */
    bots?: boolean;
    run: (ctx: AccountContext<BodyOf<S>>) => Promise<unknown> | unknown;
  },
) {
  const handler = chain(opts, async (event, context) => {
    await limitCredential(event);
    const raw = event.pathParameters?.account_id;
    const accountId = raw && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
    const { account, actor } = await authenticateAccount(
      event as unknown as APIGatewayProxyEventV2,
      accountId,
      opts.access,
      opts.bots ?? false,
    );
    await enforceLimit('account', limitScope.account(account.id));
    const ctx = { ...(await contextOf(event, context, opts)), account, actor };
    // Audited records this request writes carry who and from where (shared/db/audit-stamp.ts, docs/audit.md).
    return asWriter(
      {
        user_id: actor.type === 'user' ? actor.user.id : actor.bot.id,
        user_type: actor.type === 'user' ? 'User' : 'AgentBot',
        remote_address: event.requestContext?.http?.sourceIp ?? null,
      },
      () => opts.run(ctx),
    );
  });
  // Who may call the route, readable from the module: the authorization test covers every row by it.
  return Object.assign(handler, { access: opts.access, bots: opts.bots ?? false });
}

// ── Account interface outside an account: /api/v1/profile ────────────────────────────────────────

export interface UserContext<B> extends RequestContext<B> {
  user: UserRecord;
}

export function userHandler<S extends BodySpec | undefined = undefined>(
  opts: CommonOptions<S> & { run: (ctx: UserContext<BodyOf<S>>) => Promise<unknown> | unknown },
) {
  return chain(opts, async (event, context) => {
    await limitCredential(event);
    const user = await authenticateUser(event as unknown as APIGatewayProxyEventV2);
    return opts.run({ ...(await contextOf(event, context, opts)), user });
  });
}

// ── Platform interface: /platform/api/v1/… ─────────────────────────────────────────────────────────

export interface PlatformContext<B> extends RequestContext<B> {
  appId: number;
}

export function platformHandler<S extends BodySpec | undefined = undefined>(
  opts: CommonOptions<S> & { run: (ctx: PlatformContext<BodyOf<S>>) => Promise<unknown> | unknown },
) {
  return chain(opts, async (event, context) => {
    await limitCredential(event);
    const { appId } = await authenticatePlatform(event as unknown as APIGatewayProxyEventV2);
    return opts.run({ ...(await contextOf(event, context, opts)), appId });
  });
}

// ── Public interface: /public/api/v1/… (identifiers in the path are the credential) ──────────────

export function publicHandler<S extends BodySpec | undefined = undefined>(
  opts: CommonOptions<S> & { run: (ctx: RequestContext<BodyOf<S>>) => Promise<unknown> | unknown },
) {
  return chain(opts, async (event, context) => {
    await limitPublic(event);
    return opts.run(await contextOf(event, context, opts));
  });
}

/**
 * Public and widget routes have no account credential: the inbox (`inbox_identifier` in the path, or the
 * widget's `website_token`) counts as the account, the contact (`contact_identifier`, or the widget's
 * X-Auth-Token) as the credential. Both are counted before any read, by what the request names. A session
 * or access token sent to a route of this chain (`/auth/validate_token`, `/auth/sign_out`) counts as well.
 */
async function limitPublic(event: ParsedEvent) {
  // `/auth/validate_token` and `/auth/sign_out` carry a session: limited as its credential.
  await limitCredential(event);
  const header = Object.entries(event.headers ?? {}).find(([n]) => n.toLowerCase() === 'x-auth-token')?.[1];
  const contact = event.pathParameters?.contact_identifier ?? header;
  if (contact) await enforceLimit('credential', limitScope.contact(contact), 'contact');
  // A CSAT survey's routes: the conversation's uuid is the credential.
  const survey = event.pathParameters?.conversation_uuid;
  if (survey) await enforceLimit('credential', limitScope.contact(survey), 'survey');
  const inbox = event.pathParameters?.inbox_identifier ?? event.queryStringParameters?.website_token;
  if (inbox) await enforceLimit('account', limitScope.inbox(inbox), 'inbox');
}
