import { describe, expect, it } from 'vitest';
import { newToken, ownerToken, resetToken, resetTokenUser } from '#shared/crypto/tokens.ts';

describe('password reset tokens', () => {
  it('name their user beside 136 random bits, URL-safe and 32 characters long', () => {
    const a = resetToken(42);
    const b = resetToken(42);
    expect(a).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(a).not.toBe(b);
    expect(resetTokenUser(a)).toBe(42);
    expect(resetTokenUser(resetToken(2 ** 40))).toBe(2 ** 40);
  });

  it('name nobody when they are something else', () => {
    for (const t of [newToken(), ownerToken('user', 42), '', 'x'.repeat(32), `${resetToken(1)}=`, resetToken(7).slice(0, 31)]) {
      expect(resetTokenUser(t)).toBeUndefined();
    }
  });
});
