import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { chatScript, chatStyles, sdk, type WidgetAsset } from '../../web/widget/dist/assets.ts';
import { findInboxByWebsiteToken } from '#shared/db/repositories/inboxes.ts';
import { escapeHtml, wantsJson } from './html.ts';
import { jsonResult } from './response.ts';
import { notFound } from '#shared/errors.ts';

// Serving the widget's build (web/widget): the loader at Chatwoot's fixed URL, cached briefly so a new
// release reaches sites within minutes; the chat page's script and styles under content-hashed names,
// cached for good; the chat page and the demo page as small HTML documents naming them.

type Result = APIGatewayProxyStructuredResultV2;

const ASSET_PREFIX = '/widget/assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';
const gzipped = new Map<string, string>();

const acceptsGzip = (acceptEncoding: string | undefined) => /\bgzip\b/.test(acceptEncoding ?? '');

function serve(asset: WidgetAsset, cacheControl: string, acceptEncoding: string | undefined): Result {
  const headers = {
    'content-type': asset.type,
    'cache-control': cacheControl,
    vary: 'accept-encoding',
    'access-control-allow-origin': '*',
  };
  if (!acceptsGzip(acceptEncoding)) return { statusCode: 200, headers, body: asset.body };
  let body = gzipped.get(asset.name);
  if (body === undefined) gzipped.set(asset.name, (body = gzipSync(asset.body, { level: 9 }).toString('base64')));
  return { statusCode: 200, headers: { ...headers, 'content-encoding': 'gzip' }, body, isBase64Encoded: true };
}

/** `GET /packs/js/sdk.js`. */
export const sdkScript = (acceptEncoding?: string) => serve(sdk, 'public, max-age=300', acceptEncoding);

/** `GET /widget/assets/{file}`: only the current build's files exist. */
export function widgetAsset(file: string | undefined, acceptEncoding?: string): Result {
  const asset = [chatScript, chatStyles].find((a) => a.name === file);
  return asset ? serve(asset, IMMUTABLE, acceptEncoding) : jsonResult(404, notFound('File').body);
}

const html = (body: string, cacheControl: string, status = 200): Result => ({
  statusCode: status,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' },
  body,
});

const pageNotFound = (accept: string | undefined, text: string): Result =>
  wantsJson(accept)
    ? jsonResult(404, notFound('Web widget inbox').body, { 'cache-control': 'no-store' })
    : html(`<!doctype html><title>Not found</title><p>${text}</p>`, 'no-store', 404);

async function knownToken(token: string | undefined) {
  if (!token || token.length > 255) return false;
  const inbox = await findInboxByWebsiteToken(token);
  return inbox?.channel_type === 'Channel::WebWidget';
}

/** `GET /widget?website_token=…`: the chat page (404 for a token that names no web widget inbox). */
export async function chatPage(websiteToken: string | undefined, accept?: string): Promise<Result> {
  if (!(await knownToken(websiteToken))) return pageNotFound(accept, 'This chat does not exist.');
  return html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>Chat</title><link rel="stylesheet" href="${ASSET_PREFIX}${chatStyles.name}"></head>` +
      `<body><script src="${ASSET_PREFIX}${chatScript.name}"></script></body></html>`,
    // The page names the current build's files; a stale copy would name files that no longer exist.
    'no-cache',
  );
}

/** `GET /widget/demo?website_token=…`: a host page that embeds the snippet, as a website would. */
export async function demoPage(websiteToken: string | undefined, baseUrl: string, accept?: string): Promise<Result> {
  if (!(await knownToken(websiteToken))) return pageNotFound(accept, 'No web widget inbox has this website token.');
  const token = JSON.stringify(websiteToken).replace(/</g, '\\u003c');
  const base = JSON.stringify(baseUrl).replace(/</g, '\\u003c');
  return html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Widget demo</title>` +
      `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:640px;margin:40px auto;padding:0 20px;color:#1f2d3d}</style></head><body>` +
      `<h1>Widget demo</h1><p>This page embeds the chat widget of website token <code>${escapeHtml(websiteToken!)}</code> with the snippet a website uses. Open the bubble in the corner to chat.</p>` +
      `<script>(function(d,t){var BASE_URL=${base};var g=d.createElement(t),s=d.getElementsByTagName(t)[0];g.src=BASE_URL+"/packs/js/sdk.js";g.defer=true;g.async=true;s.parentNode.insertBefore(g,s);` +
      `g.onload=function(){window.chatwootSDK.run({websiteToken:${token},baseUrl:BASE_URL})}})(document,"script");</script></body></html>`,
    'no-store',
  );
}
