import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayInbound } from '#shared/channels/email/ingress.ts';
import { overrideEnv } from '../../../support/env.ts';
import { startFakeProvider, type FakeProvider } from '../../../support/providers.ts';

// The relay route's password deployed: the text of a Secrets Manager secret (a fake Secrets Manager on 127.0.0.1
// through the SDK's own endpoint variable), read once and kept; RAILS_INBOUND_EMAIL_PASSWORD wins when set.

const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:relay-AbCdEf';
const basic = (password: string) => `Basic ${Buffer.from(`actionmailbox:${password}`).toString('base64')}`;
// The checks before any mail is taken: a wrong password is 401, the right one with a non-mail body 415.
const relay = (password: string) =>
  relayInbound({ headers: { authorization: basic(password), 'content-type': 'text/plain' }, body: Buffer.from('x') } as never);

describe('the relay password from Secrets Manager', () => {
  let sm: FakeProvider;
  let restore: () => void;
  beforeAll(async () => {
    sm = await startFakeProvider();
    sm.on('POST', /^\/$/, (req) =>
      req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue' && req.json?.SecretId === ARN
        ? { json: { ARN, Name: 'relay', SecretString: 'from-the-secret', VersionId: 'v1' } }
        : { status: 400, json: { __type: 'ResourceNotFoundException', message: 'no such secret' } },
    );
    restore = overrideEnv({
      TABLE_NAME: process.env.TABLE_NAME ?? 'unit',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.url,
      RAILS_INBOUND_EMAIL_PASSWORD: undefined,
      RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN: ARN,
    });
  });
  afterAll(async () => {
    restore?.();
    await sm?.close();
  });

  it('checks basic auth against the secret, reading it once for many requests', async () => {
    expect((await relay('wrong')).status).toBe(401);
    expect((await relay('from-the-secret')).status).toBe(415);
    expect((await relay('from-the-secret')).status).toBe(415);
    const reads = sm.requests.filter((r) => r.headers['x-amz-target'] === 'secretsmanager.GetSecretValue');
    expect(reads).toHaveLength(1);
    expect(reads[0].json).toMatchObject({ SecretId: ARN });
  });

  it('RAILS_INBOUND_EMAIL_PASSWORD (npm start) wins over the secret', async () => {
    const back = overrideEnv({ RAILS_INBOUND_EMAIL_PASSWORD: 'local-one' });
    try {
      expect((await relay('local-one')).status).toBe(415);
      expect((await relay('from-the-secret')).status).toBe(401);
    } finally {
      back();
    }
  });
});
