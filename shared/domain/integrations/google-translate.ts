import { createHash, createSign } from 'node:crypto';
import { providerConfig } from '#shared/config.ts';
import { unprocessable } from '#shared/errors.ts';
import { log } from '#shared/log.ts';

// Google Cloud Translation (v3 translateText) for the google_translate integration, authenticated as the
// hook's service account: a JWT signed with its private key is exchanged for an access token (OAuth 2.0
// JWT bearer grant), kept per container until a minute before it expires. Only Google's endpoints are
// called (from configuration, never from the stored credentials), so a hook cannot point the service at
// another host.

const SCOPE = 'https://www.googleapis.com/auth/cloud-translation';
const TIMEOUT_MS = 10_000;

interface ServiceAccount {
  client_email: string;
  private_key: string;
}

const tokens = new Map<string, { token: string; expiresAt: number }>();

function serviceAccount(credentials: unknown): ServiceAccount {
  const c = credentials as Partial<ServiceAccount> | null;
  if (!c || typeof c.client_email !== 'string' || typeof c.private_key !== 'string') {
    throw unprocessable([
      { field: 'credentials', message: 'The Google Translate integration has no service-account key', code: 'invalid' },
    ]);
  }
  return { client_email: c.client_email, private_key: c.private_key };
}

const failed = (message: string) => unprocessable([{ field: '', message, code: 'translation_failed' }]);

/** What Google's token and translation endpoints answer (the fields read here). */
interface GoogleAnswer {
  access_token?: unknown;
  expires_in?: unknown;
  translations?: { translatedText?: unknown }[];
  error?: { message?: string } | string;
  error_description?: string;
}

async function post(url: string, init: RequestInit): Promise<GoogleAnswer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    log.warn('google request failed', { url, error });
    throw failed('Google Translate could not be reached');
  }
  const body = (await res.json().catch(() => ({}))) as GoogleAnswer;
  const error = typeof body?.error === 'object' ? body.error.message : body?.error;
  if (!res.ok) throw failed(String(error ?? body?.error_description ?? `Google answered ${res.status}`));
  return body;
}

async function accessToken(sa: ServiceAccount): Promise<string> {
  const id = createHash('sha256').update(`${sa.client_email}\n${sa.private_key}`).digest('hex');
  const now = Math.floor(Date.now() / 1000);
  const hit = tokens.get(id);
  if (hit && hit.expiresAt > now + 60) return hit.token;
  const tokenUrl = providerConfig().googleOAuthTokenUrl;
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: sa.client_email, scope: SCOPE, aud: tokenUrl, iat: now, exp: now + 3600 })}`;
  let signature: string;
  try {
    signature = createSign('RSA-SHA256').update(unsigned).sign(sa.private_key).toString('base64url');
  } catch {
    throw unprocessable([{ field: 'credentials', message: 'The Google Translate service-account key cannot sign', code: 'invalid' }]);
  }
  const body = await post(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: `${unsigned}.${signature}`,
    }).toString(),
  });
  if (typeof body.access_token !== 'string') throw failed('Google gave no access token');
  tokens.set(id, { token: body.access_token, expiresAt: now + Number(body.expires_in ?? 3600) });
  return body.access_token;
}

/** The text translated to `target` (Chatwoot's locale names, `pt_BR`, become BCP-47 `pt-BR`), or null. */
export async function translateText(
  settings: Record<string, unknown>,
  text: string,
  target: string,
  mimeType: 'text/plain' | 'text/html',
): Promise<string | null> {
  const sa = serviceAccount(settings.credentials);
  const project = String(settings.project_id ?? '');
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(project))
    throw unprocessable([{ field: 'project_id', message: 'is not a Google Cloud project id', code: 'invalid' }]);
  const token = await accessToken(sa);
  const body = await post(`${providerConfig().googleTranslateUrl}/v3/projects/${project}:translateText`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [text], targetLanguageCode: target.replace(/_/g, '-'), mimeType }),
  });
  const translated = body.translations?.[0]?.translatedText;
  return typeof translated === 'string' && translated ? translated : null;
}
