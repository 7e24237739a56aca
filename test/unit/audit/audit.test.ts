import { describe, expect, it } from 'vitest';
import { auditEntryOf, auditId, FILTERED } from '#shared/domain/audit/entry.ts';
import { stampedUpdate, stampWrite } from '#shared/db/audit-stamp.ts';
import * as keys from '#shared/db/keys.ts';
import type { Change } from '#shared/model/change.ts';
import type { AuditStamp } from '#shared/model/audit.ts';

const admin: AuditStamp = { user_id: 7, user_type: 'User', remote_address: '203.0.113.7' };
const inbox = { ...keys.inbox(3, 12), type: 'inbox', id: 12, account_id: 3, name: 'Support', version: 1, updated_at: 100 };
const change = (c: Partial<Change>): Change => ({
  id: 'e1',
  action: 'INSERT',
  type: 'inbox',
  pk: inbox.pk,
  sk: inbox.sk,
  at: 1_800_000_000,
  ...c,
});

describe('auditEntryOf', () => {
  it('a create lists the attributes set, with the writer and the record version, never keys or stamps', () => {
    const e = auditEntryOf(change({ newImage: { ...inbox, audit_by: admin, gsi2pk: 'x' } }), '000123');
    expect(e).toEqual({
      id: auditId(1_800_000_000, '000123'),
      account_id: 3,
      auditable_id: 12,
      auditable_type: 'Inbox',
      action: 'create',
      audited_changes: { id: 12, account_id: 3, name: 'Support' },
      user_id: 7,
      user_type: 'User',
      remote_address: '203.0.113.7',
      version: 1,
      created_at: 1_800_000_000,
    });
  });

  it('an update lists each changed attribute as [before, after]; one that moved only bookkeeping is none', () => {
    const before = { ...inbox, audit_by: null };
    const after = { ...inbox, name: 'Help', version: 2, updated_at: 200, audit_by: admin };
    expect(auditEntryOf(change({ action: 'MODIFY', oldImage: before, newImage: after }), '5')).toMatchObject({
      action: 'update',
      audited_changes: { name: ['Support', 'Help'] },
      user_id: 7,
      version: 2,
    });
    const stampOnly = { ...inbox, version: 2, updated_at: 300, audit_by: admin, audit_delete: admin };
    expect(auditEntryOf(change({ action: 'MODIFY', oldImage: before, newImage: stampOnly }), '6')).toBeUndefined();
  });

  it("a destroy is logged only when a request stamped the deleter; a purge's removal is not", () => {
    const stamped = auditEntryOf(change({ action: 'REMOVE', oldImage: { ...inbox, audit_by: null, audit_delete: admin } }), '7');
    expect(stamped).toMatchObject({ action: 'destroy', user_id: 7, audited_changes: { name: 'Support' } });
    expect(auditEntryOf(change({ action: 'REMOVE', oldImage: { ...inbox, audit_by: admin } }), '8')).toBeUndefined();
  });

  it('sealed secrets are filtered, nested ones too; types not audited give nothing', () => {
    // The sealed format of shared/crypto/tokens.ts: version, 16-char nonce, 22-char tag, ciphertext.
    const sealed = `v1.${'a'.repeat(16)}.${'b'.repeat(22)}.cipher`;
    const hook = {
      ...keys.webhook(3, 4),
      type: 'webhook',
      id: 4,
      account_id: 3,
      secret: sealed,
      url: 'https://x.example',
      extra: { token: sealed },
    };
    const e = auditEntryOf(change({ type: 'webhook', newImage: hook }), '9');
    expect(e?.audited_changes).toMatchObject({ secret: FILTERED, extra: { token: FILTERED }, url: 'https://x.example' });
    const resealed = { ...hook, secret: `k2.${'c'.repeat(16)}.${'d'.repeat(22)}.other`, version: 2 };
    expect(auditEntryOf(change({ type: 'webhook', action: 'MODIFY', oldImage: hook, newImage: resealed }), '10')).toBeUndefined();
    expect(auditEntryOf(change({ type: 'contact', newImage: { id: 1, account_id: 3 } }), '1')).toBeUndefined();
  });

  it("an account user's entry keeps its role and availability only; an account's id is its own", () => {
    const m = {
      ...keys.accountUser(3, 9),
      type: 'account_user',
      id: 20,
      account_id: 3,
      user_id: 9,
      role: 'agent',
      active_at: 1,
      version: 1,
    };
    const promoted = { ...m, role: 'administrator', active_at: 2, version: 2 };
    expect(auditEntryOf(change({ type: 'account_user', action: 'MODIFY', oldImage: m, newImage: promoted }), '1')?.audited_changes).toEqual(
      {
        role: ['agent', 'administrator'],
      },
    );
    expect(
      auditEntryOf(change({ type: 'account_user', action: 'MODIFY', oldImage: m, newImage: { ...m, active_at: 5 } }), '2'),
    ).toBeUndefined();
    const acct = { ...keys.account(3), type: 'account', id: 3, name: 'A' };
    expect(
      auditEntryOf(change({ type: 'account', action: 'MODIFY', oldImage: acct, newImage: { ...acct, name: 'B' } }), '3'),
    ).toMatchObject({
      account_id: 3,
      auditable_id: 3,
      auditable_type: 'Account',
    });
  });

  it('ids follow the time, then the sequence number, and are the same for the same change', () => {
    expect(auditId(100, '12345678901234567890')).toBe(auditId(100, '12345678901234567890'));
    expect(auditId(101, '1')).toBeGreaterThan(auditId(100, '99999'));
    expect(Number.isSafeInteger(auditId(4_000_000_000, '999999999999999999999999'))).toBe(true);
  });
});

describe('audit stamping of writes', () => {
  it('stamps puts of audited items and updates of audited keys; leaves the rest alone', () => {
    const put = stampWrite('PutItemCommand', { Item: { ...inbox } }, admin).input;
    expect(put.Item?.audit_by).toEqual(admin);
    const other = { Item: { ...keys.label(3, 1), type: 'label' } };
    expect(stampWrite('PutItemCommand', other, admin).input).toBe(other);
    const outside = stampWrite('PutItemCommand', { Item: { ...inbox } }, null).input;
    expect(outside.Item).toHaveProperty('audit_by', null);
    const update = stampWrite(
      'UpdateItemCommand',
      { Key: keys.team(3, 1), UpdateExpression: 'SET #a0 = :a0 ADD #version :one' },
      admin,
    ).input;
    expect(update.UpdateExpression).toBe('SET #audit_by = :audit_by, #a0 = :a0 ADD #version :one REMOVE #audit_delete');
    expect(update.ExpressionAttributeValues?.[':audit_by']).toEqual(admin);
    const ruleRun = { Key: keys.ruleRun('ev', 1), UpdateExpression: 'SET x = :x' };
    expect(stampWrite('UpdateItemCommand', ruleRun, admin).input).toBe(ruleRun);
  });

  it('an update without SET gains one; a request delete of an audited key asks for the deleter stamp first', () => {
    expect(stampedUpdate({ UpdateExpression: 'ADD #version :one' }, admin).UpdateExpression).toBe(
      'ADD #version :one SET #audit_by = :audit_by REMOVE #audit_delete',
    );
    expect(stampedUpdate({ UpdateExpression: 'SET a = :a REMOVE b' }, admin).UpdateExpression).toBe(
      'SET #audit_by = :audit_by, a = :a REMOVE #audit_delete, b',
    );
    expect(stampedUpdate({ UpdateExpression: 'ADD #n :set' }, admin).UpdateExpression).toBe(
      'ADD #n :set SET #audit_by = :audit_by REMOVE #audit_delete',
    );
    // The deleter's own stamp keeps what it sets.
    const deleter = {
      UpdateExpression: 'SET #audit_delete = :audit_delete',
      ExpressionAttributeNames: { '#audit_delete': 'audit_delete' },
    };
    expect(stampedUpdate(deleter, admin).UpdateExpression).toBe('SET #audit_by = :audit_by, #audit_delete = :audit_delete');
    const tx = stampWrite(
      'TransactWriteItemsCommand',
      { TransactItems: [{ Delete: { Key: keys.webhook(3, 4) } }, { Delete: { Key: keys.webhookUrlUnique(3, 'abc') } }] },
      admin,
    );
    expect(tx.deletes).toEqual([keys.webhook(3, 4)]);
    expect(stampWrite('DeleteItemCommand', { Key: keys.macro(3, 1) }, null).deletes).toEqual([]);
  });

  it('knows the audited keys', () => {
    for (const k of [
      keys.account(1),
      keys.accountUser(1, 2),
      keys.inbox(1, 2),
      keys.webhook(1, 2),
      keys.team(1, 2),
      keys.automationRule(1, 2),
      keys.macro(1, 2),
    ])
      expect(keys.isAuditedKey(k)).toBe(true);
    for (const k of [keys.ruleRun('e', 2), keys.inboxMember(1, 2, 3), keys.teamMember(1, 2, 3), keys.auditEntry(1, 2, '3')])
      expect(keys.isAuditedKey(k)).toBe(false);
  });
});
