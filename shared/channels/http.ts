import { config, providerConfig } from '#shared/config.ts';
import { outboundRequest } from '#shared/outbound/request.ts';
import type { IncomingFile } from '#shared/domain/channels/types.ts';
import type { ProviderJson } from './channel.ts';

// Provider HTTP for every room (docs/channels.md#the-pieces): through the outbound module's address guard,
// with a timeout; an answer classified once: 2xx ok, 429/5xx/network retryable, any other 4xx a refusal with the
// provider's own text (the room picks it out of the body).

/** The longest one provider call waits for its answer. */
export const PROVIDER_CALL_MS = 15_000;
/** The longest one media download takes (its own timeout; its quick retries only run within the first seconds). */
export const MEDIA_DOWNLOAD_MS = 2 * PROVIDER_CALL_MS;
const TIMEOUT_MS = PROVIDER_CALL_MS;
const MAX_ANSWER_BYTES = 1024 * 1024;

export type ProviderAnswer =
  | { ok: true; status: number; json: ProviderJson; text: string }
  | { ok: false; retry: true; error: string }
  | { ok: false; retry: false; status: number; json: ProviderJson; text: string };

const parseJson = (text: string): ProviderJson => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export async function callProvider(req: {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Text, or bytes (a multipart upload). */
  body?: string | Buffer;
}): Promise<ProviderAnswer> {
  const res = await outboundRequest({
    ...req,
    headers: { accept: 'application/json', ...req.headers },
    timeoutMs: TIMEOUT_MS,
    targets: config().webhookTargets,
    maxResponseBytes: MAX_ANSWER_BYTES,
  });
  if (res.status === undefined) {
    const error = res.error ?? 'no answer';
    // A refused address or an unusable URL stays so: a refusal, with the reason as its text.
    return res.permanent ? { ok: false, retry: false, status: 0, json: undefined, text: error } : { ok: false, retry: true, error };
  }
  const text = res.body.toString('utf8');
  const json = parseJson(text);
  if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status, json, text };
  if (res.status === 429 || res.status >= 500)
    return { ok: false, retry: true, error: `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}` };
  return { ok: false, retry: false, status: res.status, json, text };
}

/**
 * A media read's transient failure (429, 5xx, no answer) is tried again after these pauses: a provider's brief
 * outage does not cost the contact's file, and the webhook's job stays short (the message is stored without the
 * file when every attempt failed). Only while the read has taken less than the budget: a provider that lets a
 * request time out is not waited for again.
 */
const MEDIA_RETRY_PAUSES_MS = [300, 1200];
const MEDIA_RETRY_BUDGET_MS = 5_000;

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function retried<T>(attempt: () => Promise<T>, transient: (r: T) => boolean): Promise<T> {
  const started = Date.now();
  let result = await attempt();
  for (const ms of MEDIA_RETRY_PAUSES_MS) {
    if (!transient(result) || Date.now() - started > MEDIA_RETRY_BUDGET_MS) break;
    await pause(ms);
    result = await attempt();
  }
  return result;
}

/** A provider read for a media file (a media id's metadata): callProvider, a transient failure tried again (bounded). */
export const readProvider = (req: { url: string; headers?: Record<string, string> }): Promise<ProviderAnswer> =>
  retried(
    () => callProvider({ method: 'GET', ...req }),
    (a) => !a.ok && a.retry,
  );

export const jsonHeaders = { 'content-type': 'application/json' };

/**
 * Whether `url` is on the origin of `base` (a provider's configured API host). An inbox's credentials go only
 * there: a URL an unauthenticated webhook names may point anywhere, and must not be handed the inbox's key.
 */
export function onOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}

export const basicAuth = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

/** Types a provider's file may have: media and documents, never a page or a script. */
const REFUSED_TYPES = /^(text\/html|application\/(x-)?javascript|text\/javascript|application\/xhtml)/i;

const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/ogg': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'application/pdf': 'pdf',
};

/**
 * A file from the provider: at most CHANNEL_MEDIA_MAX_BYTES, a media or document type (the answer's type, else
 * the one the payload named), a name from the payload, the URL or the type. Undefined when it cannot be had (a
 * transient failure is tried again first, a bounded number of times).
 */
export async function downloadMedia(
  url: string,
  opts: { headers?: Record<string, string>; filename?: string; contentType?: string },
): Promise<IncomingFile | undefined> {
  const attempt = () =>
    outboundRequest({
      method: 'GET',
      url,
      headers: opts.headers,
      timeoutMs: MEDIA_DOWNLOAD_MS,
      targets: config().webhookTargets,
      maxResponseBytes: providerConfig().channelMediaMaxBytes,
      maxRedirects: 3,
    });
  const res = await retried(attempt, (r) => (r.status === undefined ? !r.permanent : r.status === 429 || r.status >= 500));
  if (res.status === undefined || res.status < 200 || res.status >= 300 || !res.body.length) return undefined;
  const answered = String(res.headers['content-type'] ?? '')
    .split(';')[0]
    .trim();
  const type =
    (answered && answered !== 'application/octet-stream' ? answered : opts.contentType?.split(';')[0].trim()) || 'application/octet-stream';
  if (REFUSED_TYPES.test(type)) return undefined;
  const fromUrl = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  const filename =
    opts.filename || (/\.\w{2,5}$/.test(fromUrl) ? fromUrl : `${fromUrl || 'file'}${EXTENSIONS[type] ? `.${EXTENSIONS[type]}` : ''}`);
  return { filename: filename.slice(0, 255), content_type: type, data: res.body };
}
