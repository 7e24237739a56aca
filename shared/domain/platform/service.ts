import { hashToken, newToken } from '#shared/crypto/tokens.ts';
import { nextId } from '#shared/db/ids.ts';
import { createPlatformApp as storePlatformApp, getToken } from '#shared/db/repositories/identity.ts';
import { now } from '#shared/model/time.ts';

/**
 * Creates a platform app and returns its token, the only time the token is ever shown. With a given
 * token that already belongs to a platform app, that app is kept (a restarted runtime with data on disk).
 */
export async function createPlatformApp(name: string, token = newToken()): Promise<{ id: number; name: string; token: string }> {
  const hash = hashToken(token);
  const existing = await getToken(hash);
  if (existing?.owner_type === 'platform_app') return { id: existing.owner_id, name, token };
  if (existing) throw new Error('That token already belongs to another credential');
  const app = { id: await nextId('platform_app'), name, created_at: now() };
  await storePlatformApp(app, hash);
  return { ...app, token };
}
