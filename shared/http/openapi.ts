import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import doc from '../../openapi.json' with { type: 'json' };
import { config } from '#shared/config.ts';

// The committed OpenAPI document, with this deployment's address as its server. Built once per process
// (about 100 KB of JSON), gzipped for the clients that take it.

let body: { plain: string; gzip: string } | undefined;

export function serveOpenApi(acceptEncoding: string | undefined): APIGatewayProxyStructuredResultV2 {
  if (!body) {
    const plain = JSON.stringify({ ...doc, servers: [{ url: config().publicBaseUrl }] });
    body = { plain, gzip: gzipSync(plain).toString('base64') };
  }
  const headers = {
    'content-type': 'application/json',
    'cache-control': 'public, max-age=300',
    vary: 'accept-encoding',
    'access-control-allow-origin': '*',
  };
  if (!/\bgzip\b/.test(acceptEncoding ?? '')) return { statusCode: 200, headers, body: body.plain };
  return { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body: body.gzip, isBase64Encoded: true };
}
