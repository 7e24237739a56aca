import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { ServiceError, tooLarge } from '#shared/errors.ts';
import { log, logContext } from '#shared/log.ts';
import { errorResult } from './errors.ts';
import { jsonResult, type HttpResult } from './response.ts';

// Routes a third party calls with its own conventions (a messaging provider's webhook): the exact body bytes
// (signatures are over them; API Gateway may hand them base64-encoded), the headers lower-cased, and an answer
// of the status and body the provider expects. No credential of ours and no request limit: a provider's burst
// comes from few addresses, and a throttled webhook is retried by the provider, piling up (each request costs
// one key read before its signature is checked).

export interface RawRequest {
  method: string;
  /** The path as requested (what a provider signs; `+` stays `+`). */
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /** The query string exactly as requested, without `?` (what Twilio signs). */
  rawQuery?: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface RawAnswer {
  status: number;
  /** Sent as is; an object is sent as JSON. */
  body?: string | Record<string, unknown>;
  contentType?: string;
  /** A redirect's target (an OAuth callback sending the browser on). */
  location?: string;
}

/** Webhook payloads are small; anything larger is refused before it is read further. */
export const MAX_RAW_BODY_BYTES = 240 * 1024;

export function rawRequestOf(event: APIGatewayProxyEventV2): RawRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v;
  const body = !event.body ? Buffer.alloc(0) : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  return {
    method: event.requestContext?.http?.method ?? 'POST',
    path: event.rawPath ?? '/',
    params: (event.pathParameters ?? {}) as Record<string, string>,
    query: (event.queryStringParameters ?? {}) as Record<string, string>,
    rawQuery: event.rawQueryString ?? '',
    headers,
    body,
  };
}

const toResult = (a: RawAnswer): HttpResult =>
  a.location
    ? { statusCode: a.status, headers: { location: a.location, 'cache-control': 'no-store' }, body: '' }
    : typeof a.body === 'object'
      ? jsonResult(a.status, a.body)
      : {
          statusCode: a.status,
          headers: a.body ? { 'content-type': a.contentType ?? 'text/plain; charset=utf-8' } : {},
          body: a.body ?? '',
        };

/** `maxBytes`: a route that takes larger bodies (a raw mail: up to API Gateway's 10 MB). */
export function rawHandler(run: (req: RawRequest) => Promise<RawAnswer>, opts: { maxBytes?: number } = {}) {
  const limit = opts.maxBytes ?? MAX_RAW_BODY_BYTES;
  return middy<APIGatewayProxyEventV2, HttpResult>()
    .use(logContext())
    .handler(async (event: APIGatewayProxyEventV2, context: Context) => {
      try {
        const size = event.body ? (event.isBase64Encoded ? Math.floor((event.body.length * 3) / 4) : Buffer.byteLength(event.body)) : 0;
        if (size > limit) return errorResult(tooLarge(limit));
        return toResult(await run(rawRequestOf(event)));
      } catch (err) {
        if (err instanceof ServiceError) return errorResult(err);
        const requestId = event.requestContext?.requestId ?? context.awsRequestId;
        log.error('unhandled error', { requestId, route: event.routeKey, error: err });
        return jsonResult(500, {
          description: 'Internal server error',
          errors: [{ field: '', message: `Something went wrong (request ${requestId})`, code: 'internal' }],
        });
      }
    });
}
