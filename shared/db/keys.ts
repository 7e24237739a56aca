// Every key string of the table is built here; nothing else writes '#'.
// Layout (pk / sk, and index keys where an item has them):
//   token            TOKEN#<sha256>            TOKEN
//   platform app     PAPP#<id>                 PAPP
//   permissible      PAPP#<appId>              PERM#<kind>#<id>         (kind: ACCOUNT, USER, BOT)
//   account          ACCT#<id>                 ACCOUNT
//   account user     ACCT#<accountId>          AU#<userId>              gsi1: USER#<userId> / AU#<accountId>
//   user             USER#<id>                 USER
//   agent bot        BOT#<id>                  BOT                      gsi1: BOTS#<accountId|SYSTEM> / BOT#<id>
//   bot access       ACCT#<accountId>          BOTACCESS#<botId>
//   unique sentinel  UNIQ#<scope>#<value>      UNIQ
//   id sequence      SEQ#<name>                SEQ

export type Key = { pk: string; sk: string };

const SEP = '#';
const join = (...parts: (string | number)[]) => parts.join(SEP);
/** Zero-padded so that numeric ids sort in sort keys. */
export const pad = (n: number, width = 12) => String(n).padStart(width, '0');

export const keys = {
  token: (hash: string): Key => ({ pk: join('TOKEN', hash), sk: 'TOKEN' }),

  platformApp: (id: number): Key => ({ pk: join('PAPP', id), sk: 'PAPP' }),
  permissible: (appId: number, kind: PermissibleKind, id: number): Key => ({
    pk: join('PAPP', appId),
    sk: join('PERM', kind, id),
  }),
  permissiblePrefix: (appId: number, kind: PermissibleKind) => ({ pk: join('PAPP', appId), skPrefix: join('PERM', kind, '') }),
  permissibleIdFromSk: (sk: string): number => Number(sk.split(SEP)[2]),

  account: (id: number): Key => ({ pk: join('ACCT', id), sk: 'ACCOUNT' }),

  accountUser: (accountId: number, userId: number): Key => ({ pk: join('ACCT', accountId), sk: join('AU', pad(userId)) }),
  accountUserIndex: (accountId: number, userId: number) => ({ gsi1pk: join('USER', userId), gsi1sk: join('AU', pad(accountId)) }),
  accountUsersPrefix: (accountId: number) => ({ pk: join('ACCT', accountId), skPrefix: join('AU', '') }),
  userAccountsPrefix: (userId: number) => ({ gsi1pk: join('USER', userId), skPrefix: join('AU', '') }),

  user: (id: number): Key => ({ pk: join('USER', id), sk: 'USER' }),

  agentBot: (id: number): Key => ({ pk: join('BOT', id), sk: 'BOT' }),
  agentBotIndex: (id: number, accountId: number | null) => ({ gsi1pk: join('BOTS', accountId ?? 'SYSTEM'), gsi1sk: join('BOT', pad(id)) }),
  agentBotsOf: (accountId: number | null) => ({ gsi1pk: join('BOTS', accountId ?? 'SYSTEM'), skPrefix: join('BOT', '') }),

  /** An agent bot's right to act in an account it does not belong to (written when attached to an inbox). */
  agentBotAccess: (accountId: number, botId: number): Key => ({ pk: join('ACCT', accountId), sk: join('BOTACCESS', botId) }),

  // ── account interface keys: each area adds its own block below, with its layout in the header ──

  /** Uniqueness sentinel: written with attribute_not_exists in the same transaction as its owner. */
  unique: (scope: string, value: string): Key => ({ pk: join('UNIQ', scope, value), sk: 'UNIQ' }),

  sequence: (name: string): Key => ({ pk: join('SEQ', name), sk: 'SEQ' }),
};

export type PermissibleKind = 'ACCOUNT' | 'USER' | 'BOT';
