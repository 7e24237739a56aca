import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { overrideEnv } from '../../support/env.ts';
import {
  addKeyVersion,
  isSealed,
  locatedPubsubToken,
  parseKeyMaterial,
  pubsubTokenLocation,
  reloadKeyring,
  seal,
  sealedVersion,
  unseal,
} from '#shared/crypto/tokens.ts';

describe('versioned sealing', () => {
  const first = Buffer.alloc(32, 7).toString('base64');
  // Put back for the files after this one (a unit worker runs many files in one process).
  let restore = (): void => undefined;
  beforeEach(() => {
    restore();
    restore = overrideEnv({ TOKEN_KEY_FILE: undefined, TABLE_NAME: process.env.TABLE_NAME ?? 'unit', TOKEN_KEY: first });
  });
  afterAll(() => restore());

  it('names the key version in the sealed value and opens the first format', async () => {
    const sealed = await seal('whsec_abc');
    expect(sealed).toMatch(/^k1\./);
    expect(sealedVersion(sealed)).toBe(1);
    expect(await unseal(sealed)).toBe('whsec_abc');
    const legacy = sealed.replace(/^k1\./, 'v1.');
    expect(sealedVersion(legacy)).toBe(1);
    expect(await unseal(legacy)).toBe('whsec_abc');
  });

  it('reads the deployed key from Secrets Manager through Parameters: once per TTL, and again at once after a reload', async () => {
    const arn = `arn:aws:secretsmanager:us-east-1:123456789012:secret:token-key-${process.pid}-${Date.now()}`;
    let material = JSON.stringify({ current: 1, keys: { '1': first } });
    const asked: string[] = [];
    const send = vi.spyOn(SecretsManagerClient.prototype, 'send').mockImplementation(async (command: unknown) => {
      if (!(command instanceof GetSecretValueCommand)) throw new Error('unexpected command');
      asked.push(String(command.input.SecretId));
      return { SecretString: material } as never;
    });
    restore();
    restore = overrideEnv({
      TOKEN_KEY_FILE: undefined,
      TOKEN_KEY: undefined,
      TOKEN_KEY_SECRET_ARN: arn,
      KEYRING_TTL_SECONDS: '300',
      TABLE_NAME: process.env.TABLE_NAME ?? 'unit',
    });
    try {
      const one = await seal('a');
      expect(sealedVersion(await seal('b'))).toBe(1);
      expect(asked).toEqual([arn]);
      // Rotated elsewhere: this container keeps sealing with what it cached until the TTL or a reload.
      material = JSON.stringify(addKeyVersion(material));
      expect(sealedVersion(await seal('c'))).toBe(1);
      expect(asked).toHaveLength(1);
      reloadKeyring();
      const two = await seal('d');
      expect(sealedVersion(two)).toBe(2);
      expect(asked).toEqual([arn, arn]);
      expect(await unseal(one)).toBe('a');
      expect(await unseal(two)).toBe('d');
    } finally {
      send.mockRestore();
    }
  });

  it('tells sealed values from secrets stored in clear', async () => {
    expect(isSealed(await seal(''))).toBe(true);
    for (const clear of [`whsec_${'A'.repeat(43)}=`, '123456:ABC-def_ghi', 'k1.short.x.y', 'hunter2', 'a.b.c.d'])
      expect(isSealed(clear)).toBe(false);
  });

  it('seals with the current version and opens every older one after a rotation', async () => {
    const before = await seal('old secret');
    const rotated = addKeyVersion(first);
    expect(rotated.current).toBe(2);
    expect(rotated.keys['1']).toBe(first);
    restore();
    restore = overrideEnv({ TOKEN_KEY_FILE: undefined, TABLE_NAME: process.env.TABLE_NAME ?? 'unit', TOKEN_KEY: JSON.stringify(rotated) });
    const after = await seal('new secret');
    expect(sealedVersion(after)).toBe(2);
    expect(await unseal(before)).toBe('old secret');
    expect(await unseal(after)).toBe('new secret');
    expect(parseKeyMaterial(JSON.stringify(rotated)).current).toBe(2);
    // A value whose key version is unknown does not open.
    await expect(unseal(after.replace(/^k2\./, 'k9.'))).rejects.toThrow(/version 9/);
  });

  it('refuses a tampered value', async () => {
    const sealed = await seal('secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other!').toString('base64url');
    await expect(unseal(parts.join('.'))).rejects.toThrow();
  });
});

describe('owner-naming tokens', () => {
  it('name their owner in 32 base64url characters, with fresh randomness each time', async () => {
    const { ownerToken, tokenOwnerHint } = await import('#shared/crypto/tokens.ts');
    const a = ownerToken('user', 42);
    const b = ownerToken('user', 42);
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(a).not.toBe(b);
    expect(tokenOwnerHint(a)).toEqual({ owner_type: 'user', owner_id: 42 });
    expect(tokenOwnerHint(ownerToken('agent_bot', 2 ** 40 + 7))).toEqual({ owner_type: 'agent_bot', owner_id: 2 ** 40 + 7 });
  });

  it('anything else names no owner', async () => {
    const { ownerToken, tokenOwnerHint } = await import('#shared/crypto/tokens.ts');
    expect(tokenOwnerHint('')).toBeUndefined();
    expect(tokenOwnerHint('short')).toBeUndefined();
    expect(tokenOwnerHint(`${ownerToken('user', 1)}x`)).toBeUndefined();
    expect(tokenOwnerHint(`A${ownerToken('user', 1).slice(1)}`)).toBeUndefined();
    // Owner id 0 (a marker byte followed by zeros) is no owner.
    expect(tokenOwnerHint(Buffer.from([0xa7, ...Array(23).fill(0)]).toString('base64url'))).toBeUndefined();
  });
});

describe('located pubsub tokens', () => {
  it('name the contact inbox beside 136 random bits; older and foreign tokens name none', () => {
    const a = locatedPubsubToken(7, 2 ** 40, 12);
    const b = locatedPubsubToken(7, 2 ** 40, 12);
    expect(a).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect(a).not.toBe(b);
    expect(pubsubTokenLocation(a)).toEqual({ account_id: 7, contact_id: 2 ** 40, inbox_id: 12 });
    expect(pubsubTokenLocation(b)).toEqual(pubsubTokenLocation(a));
    // A token of the earlier format (24 random characters) and other strings of any length.
    expect(pubsubTokenLocation(Buffer.alloc(18, 0xc1).toString('base64url'))).toBeUndefined();
    expect(pubsubTokenLocation(a.slice(1))).toBeUndefined();
    expect(pubsubTokenLocation(`${a.slice(0, 47)}!`)).toBeUndefined();
    // Another marker byte, or a zero id, is no location.
    const other = Buffer.from(a, 'base64url');
    other[0] = 0xa7;
    expect(pubsubTokenLocation(other.toString('base64url'))).toBeUndefined();
    expect(pubsubTokenLocation(locatedPubsubToken(7, 0, 12))).toBeUndefined();
  });
});
