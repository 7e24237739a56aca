import { describe, expect, it } from 'vitest';
import { ENV_NAMES, ENV_OF } from '#shared/config-reads.ts';
import {
  type Config,
  type MailConfig,
  type PipelineConfig,
  type ProviderConfig,
  readConfig,
  readMailConfig,
  readPipelineConfig,
  readProviderConfig,
} from '#shared/config.ts';

describe('readConfig', () => {
  it('applies the defaults with only the table named', () => {
    const { value, invalid } = readConfig({ TABLE_NAME: 't' });
    expect(invalid).toEqual([]);
    expect(value).toMatchObject({
      tableName: 't',
      region: 'us-east-1',
      publicBaseUrl: 'http://127.0.0.1:3000',
      cableUrl: 'ws://127.0.0.1:3000/cable',
      frontendUrl: 'http://127.0.0.1:3000',
      serviceName: 'chatwoot-serverless',
      metricsEnabled: false,
      webhookTargets: 'public',
      logLevel: 'INFO',
      limits: { account: { perMinute: 6000, burst: 1000 }, syncShare: 0.05 },
      messengerHumanAgent: false,
    });
    expect(value.dynamodbEndpoint).toBeUndefined();
    expect(readMailConfig({})).toMatchObject({
      invalid: [],
      value: { mailTransport: 'local', inboundMail: { smtpPort: 2525, imapPollSeconds: 60 }, smtp: undefined },
    });
    expect(readPipelineConfig({})).toMatchObject({
      invalid: [],
      value: { slaWakeups: undefined, webhookTimeoutMs: 10_000, purgeChunkDeletes: 400 },
    });
  });

  it('reads counts, choices, flags and addresses, trimming a trailing slash', () => {
    const env = {
      TABLE_NAME: 't',
      PUBLIC_BASE_URL: 'https://chat.example.com/',
      FRONTEND_URL: 'https://app.example.com/',
      SERVICE_NAME: 'prod',
      WEBHOOK_TIMEOUT_MS: '0',
      LIMIT_SYNC_PERCENT: '250',
      LOG_LEVEL: 'SILENT',
      ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true',
      SMTP_ADDRESS: '127.0.0.1',
      SMTP_PORT: '2526',
      SMTP_USERNAME: 'u',
      SES_MAIL_BUCKET: 'mails',
      MAILER_INBOUND_EMAIL_DOMAIN: 'Mail.Example.com',
      SLA_SCHEDULE_GROUP: 'g',
      SLA_WAKEUP_FUNCTION_ARN: 'f',
      SLA_WAKEUP_ROLE_ARN: 'r',
      ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT: 'true',
    };
    const { value, invalid } = readConfig(env);
    expect(invalid).toEqual([]);
    expect(value).toMatchObject({
      publicBaseUrl: 'https://chat.example.com',
      cableUrl: 'wss://chat.example.com/cable',
      frontendUrl: 'https://app.example.com',
      serviceName: 'prod',
      metricsEnabled: true,
      limits: { syncShare: 1 },
      logLevel: 'SILENT',
      webhookTargets: 'loopback',
      instagramHumanAgent: true,
    } satisfies Partial<Record<keyof Config, unknown>>);
    const mail = readMailConfig(env);
    expect(mail.invalid).toEqual([]);
    expect(mail.value).toMatchObject({
      smtp: { host: '127.0.0.1', port: 2526, user: 'u', pass: undefined },
      inboundMail: { domain: 'mail.example.com', ses: { bucket: 'mails', prefix: 'ses/' } },
    } satisfies Partial<Record<keyof MailConfig, unknown>>);
    const pipeline = readPipelineConfig(env);
    expect(pipeline.invalid).toEqual([]);
    expect(pipeline.value).toMatchObject({
      webhookTimeoutMs: 1,
      slaWakeups: { group: 'g', functionArn: 'f', roleArn: 'r' },
    } satisfies Partial<Record<keyof PipelineConfig, unknown>>);
    const providers = readProviderConfig({ TELEGRAM_API_BASE_URL: 'http://127.0.0.1:9000/', CHANNEL_MEDIA_MAX_BYTES: '0' });
    expect(providers.invalid).toEqual([]);
    expect(providers.value).toMatchObject({
      telegramBaseUrl: 'http://127.0.0.1:9000',
      whatsappCloudBaseUrl: 'https://graph.facebook.com',
      channelMediaMaxBytes: 1,
      channelSendRetryBaseSeconds: 30,
    } satisfies Partial<Record<keyof ProviderConfig, unknown>>);
    expect(readProviderConfig({ FB_APP_SECRET: '', CHANNEL_SEND_RETRY_BASE_SECONDS: 'x' }).invalid.sort()).toEqual([
      'CHANNEL_SEND_RETRY_BASE_SECONDS',
      'FB_APP_SECRET',
    ]);
  });

  it('names every refused variable', () => {
    const env = {
      TABLE_NAME: '',
      DYNAMODB_ENDPOINT: '',
      MAX_BODY_BYTES: '1.5',
      ID_BLOCK_SIZE: '-1',
      PURGE_CHUNK_DELETES: 'many',
      LOG_LEVEL: 'TRACE',
      MAIL_TRANSPORT: 'smtp',
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'yes',
      SMTP_PORT: '123456',
    };
    const invalid = [readConfig, readMailConfig, readPipelineConfig].flatMap((read) => read(env).invalid);
    expect(invalid.sort()).toEqual(
      [
        'TABLE_NAME',
        'DYNAMODB_ENDPOINT',
        'MAX_BODY_BYTES',
        'ID_BLOCK_SIZE',
        'PURGE_CHUNK_DELETES',
        'LOG_LEVEL',
        'MAIL_TRANSPORT',
        'ALLOW_PRIVATE_WEBHOOK_TARGETS',
        'SMTP_PORT',
      ].sort(),
    );
    expect(readConfig({}).invalid).toEqual(['TABLE_NAME']);
  });

  it('reads, in its four parts, exactly the variables the deploy proof classifies', () => {
    const read = new Set<string>();
    const env = new Proxy({ TABLE_NAME: 't' } as Record<string, string | undefined>, {
      get(target, name: string) {
        read.add(name);
        return target[name];
      },
    });
    readConfig(env);
    readProviderConfig(env);
    readMailConfig(env);
    readPipelineConfig(env);
    expect([...read].sort()).toEqual([...ENV_NAMES].sort());
    expect(ENV_OF.cableUrl).toEqual(['CABLE_URL', 'PUBLIC_BASE_URL']);
  });
});
