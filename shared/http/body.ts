import type middy from '@middy/core';
import jsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { HttpError, badRequest, tooLarge } from './errors.ts';

export type ParsedEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body: unknown };

const JSON_TYPE = /^application\/(.+\+)?json($|;.+)/;
const jsonParser = jsonBodyParser({ disableContentTypeError: true });

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

export interface BodyOptions {
  maxBytes: number;
  /** Parser for multipart/form-data; routes that accept uploads pass one. */
  multipart?: (raw: Buffer, contentType: string) => Promise<Record<string, unknown>>;
}

/**
 * Body size, content type and shape, before anything else runs: 413 when too large, 400 when the
 * JSON is malformed or is not an object, 415 for media types the route does not take.
 */
export function requestBody(options: BodyOptions): middy.MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async (request) => {
      const event = request.event;
      const raw = rawBody(event);
      if (raw.length > options.maxBytes) throw tooLarge(options.maxBytes);
      const contentType = (event.headers?.['content-type'] ?? '').toLowerCase();
      const parsed = event as unknown as ParsedEvent;
      if (raw.length === 0 || raw.toString('utf8').trim() === '') {
        parsed.body = {};
        return;
      }
      if (JSON_TYPE.test(contentType)) {
        try {
          await jsonParser.before!(request as never);
        } catch {
          throw badRequest('The request body is not valid JSON', 'malformed');
        }
      } else if (contentType.startsWith('application/x-www-form-urlencoded')) {
        parsed.body = parseForm(raw.toString('utf8'));
      } else if (contentType.startsWith('multipart/form-data') && options.multipart) {
        parsed.body = await options.multipart(raw, event.headers['content-type'] ?? '');
      } else if (contentType === '' || contentType.startsWith('text/plain')) {
        // Clients that forget the header still mostly send JSON.
        try {
          parsed.body = JSON.parse(raw.toString('utf8'));
        } catch {
          throw badRequest('The request body is not valid JSON', 'malformed');
        }
      } else {
        throw new HttpError(415, `Unsupported content type ${contentType}`, [
          { field: '', message: 'Send application/json', code: 'unsupported_media_type' },
        ]);
      }
      const body = parsed.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw badRequest('The request body must be a JSON object', 'not_an_object');
      }
    },
  };
}
