import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ServiceError, badRequest, tooLarge } from '#shared/errors.ts';

export type ParsedEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body: unknown };

const JSON_TYPE = /^application\/(.+\+)?json($|;.+)/;

function rawBody(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** Rails-style nested form keys: `webhook[url]=x`, `labels[]=a`, `a[b][c]=d`. */
export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) setNested(out, key, value);
  return out;
}

/**
 * The query string as Rails reads it into `params`: `labels[]=a&labels[]=b` a list, `a[b]=c` nested. API Gateway's
 * `queryStringParameters` join repeated keys with commas and keep brackets in names, so a query with brackets is read
 * from the raw string.
 */
export function queryParams(event: Pick<APIGatewayProxyEventV2, 'rawQueryString' | 'queryStringParameters'>): Record<string, unknown> {
  const raw = event.rawQueryString ?? '';
  if (/\[|%5B/i.test(raw)) return parseForm(raw);
  return { ...(event.queryStringParameters ?? {}) };
}

export function setNested(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.replace(/\]/g, '').split('[');
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    if (Array.isArray(node)) {
      if (last) node.push(value);
      else {
        const child = {};
        node.push(child);
        node = child;
      }
      continue;
    }
    if (part === '__proto__' || part === 'constructor' || part === 'prototype') return;
    if (last) {
      node[part] = value;
      continue;
    }
    const wantsArray = parts[i + 1] === '';
    const existing = node[part];
    if (wantsArray ? !Array.isArray(existing) : typeof existing !== 'object' || existing === null || Array.isArray(existing)) {
      node[part] = wantsArray ? [] : {};
    }
    node = node[part] as Record<string, unknown> | unknown[];
  }
}

export type MultipartParser = (raw: Buffer, contentType: string, limits: { maxBytes: number }) => Promise<Record<string, unknown>>;

export interface BodyOptions {
  maxBytes: number;
  /** Parser for multipart/form-data; routes that accept uploads pass one. */
  multipart?: MultipartParser;
  /** The limit of a multipart body on such a route (files travel in it); `maxBytes` otherwise. */
  maxMultipartBytes?: number;
}

const headerOf = (event: APIGatewayProxyEventV2, name: string) =>
  Object.entries(event.headers ?? {}).find(([n]) => n.toLowerCase() === name)?.[1] ?? '';

/**
 * The most a deployed function can receive as a multipart body: Lambda takes a synchronous event of at
 * most 6 MB (6,291,456 bytes), API Gateway hands it a multipart body base64-encoded (4 bytes per 3),
 * and the rest of the event (headers, request context) is kept under 16 KiB: (6,291,456 − 16,384) × 3/4
 * is 4,706,304 bytes, rounded down. A 4 MiB file fits with its form fields; larger files go through
 * direct uploads (shared/storage/direct-uploads.ts).
 */
export const MAX_MULTIPART_BODY_BYTES = 4_700_000;

/** The body limit of a request on a route: multipart bodies of upload routes may be larger. */
export function bodyLimit(
  event: APIGatewayProxyEventV2,
  options: Pick<BodyOptions, 'maxBytes' | 'multipart' | 'maxMultipartBytes'>,
): number {
  if (!options.multipart || !headerOf(event, 'content-type').toLowerCase().startsWith('multipart/form-data')) return options.maxBytes;
  return Math.max(options.maxBytes, options.maxMultipartBytes ?? MAX_MULTIPART_BODY_BYTES);
}

/**
 * Only the size, which costs nothing to check, before anything else runs (API Gateway and Rails' front
 * servers refuse an oversized body before the application sees it too).
 */
export function bodySizeLimit(
  options: Pick<BodyOptions, 'maxBytes' | 'multipart' | 'maxMultipartBytes'>,
): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async (request) => {
      const event = request.event;
      if (!event.body) return;
      const size = Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      const max = bodyLimit(event, options);
      if (size > max) throw tooLarge(max);
    },
  };
}

const parseJson = (raw: Buffer): unknown => {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('The request body is not valid JSON', 'malformed');
  }
};

/**
 * The body's content type and shape, once the route and the caller are known (so anonymous junk costs
 * no parsing): 413 when too large, 400 when malformed or not an object, 415 for media types the route
 * does not take. Replaces `event.body` with the parsed object.
 */
export async function parseBody(event: APIGatewayProxyEventV2, options: BodyOptions): Promise<Record<string, unknown>> {
  const parsed = event as unknown as ParsedEvent;
  if (typeof parsed.body === 'object' && parsed.body !== null) return parsed.body as Record<string, unknown>;
  const raw = rawBody(event);
  const max = bodyLimit(event, options);
  if (raw.length > max) throw tooLarge(max);
  const header = headerOf(event, 'content-type');
  const contentType = header.toLowerCase();
  let body: unknown;
  if (raw.length === 0 || raw.toString('utf8').trim() === '') body = {};
  else if (JSON_TYPE.test(contentType)) body = parseJson(raw);
  else if (contentType.startsWith('application/x-www-form-urlencoded')) body = parseForm(raw.toString('utf8'));
  else if (contentType.startsWith('multipart/form-data') && options.multipart) {
    body = await options.multipart(raw, header, { maxBytes: max });
  } else if (contentType === '' || contentType.startsWith('text/plain')) {
    // Clients that forget the header still mostly send JSON.
    body = parseJson(raw);
  } else {
    throw new ServiceError('unsupported_media_type', `Unsupported content type ${contentType}`, [
      { field: '', message: 'Send application/json', code: 'unsupported_media_type' },
    ]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object', 'not_an_object');
  }
  parsed.body = body;
  return body as Record<string, unknown>;
}
