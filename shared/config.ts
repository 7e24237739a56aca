// The only reader of process.env. Read once, on first use, so that the local runtime and tests can
// set the environment before any handler module asks for it. Every function loads this module, so it reads
// with a few small helpers (each variable named once) rather than a schema: a schema of 84 variables cost every
// cold start ~3 KiB more (docs/cost.md#cold-start).

/** Every variable the configuration reads (shared/config-reads.ts maps each field to its variables). */
export type EnvName =
  | 'TABLE_NAME'
  | 'AWS_REGION'
  | 'DYNAMODB_ENDPOINT'
  | 'SQS_ENDPOINT'
  | 'S3_ENDPOINT'
  | 'EVENTS_QUEUE_URL'
  | 'DELIVERIES_QUEUE_URL'
  | 'DELIVERIES_DLQ_URL'
  | 'AVATAR_BUCKET'
  | 'PUBLIC_BASE_URL'
  | 'TOKEN_KEY'
  | 'TOKEN_KEY_SECRET_ARN'
  | 'TOKEN_KEY_FILE'
  | 'KEYRING_TTL_SECONDS'
  | 'MAX_BODY_BYTES'
  | 'ID_BLOCK_SIZE'
  | 'LOG_LEVEL'
  | 'SERVICE_NAME'
  | 'WEBHOOK_TIMEOUT_MS'
  | 'WEBHOOK_RETRY_BASE_SECONDS'
  | 'WEBHOOK_MAX_AGE_SECONDS'
  | 'ALLOW_LOOPBACK_WEBHOOK_TARGETS'
  | 'ALLOW_PRIVATE_WEBHOOK_TARGETS'
  | 'LIMIT_ACCOUNT_PER_MINUTE'
  | 'LIMIT_ACCOUNT_BURST'
  | 'LIMIT_CREDENTIAL_PER_MINUTE'
  | 'LIMIT_CREDENTIAL_BURST'
  | 'LIMIT_SYNC_PERCENT'
  | 'LIMIT_FILE_PER_MINUTE'
  | 'LIMIT_FILE_BURST'
  | 'FILE_URL_TTL_SECONDS'
  | 'CABLE_ENDPOINT'
  | 'CABLE_QUEUE_PREFIX'
  | 'CABLE_URL'
  | 'MAIL_QUEUE_URL'
  | 'SLA_SCHEDULE_GROUP'
  | 'SLA_WAKEUP_FUNCTION_ARN'
  | 'SLA_WAKEUP_ROLE_ARN'
  | 'PURGE_CHUNK_DELETES'
  | 'CONTACT_IMPORT_CHUNK_ROWS'
  | 'AUDIT_LOG_RETENTION_DAYS'
  | 'MAILER_SENDER_EMAIL'
  | 'MAIL_TRANSPORT'
  | 'SMTP_ADDRESS'
  | 'SMTP_PORT'
  | 'SMTP_USERNAME'
  | 'SMTP_PASSWORD'
  | 'MAIL_DIR'
  | 'MAILER_INBOUND_EMAIL_DOMAIN'
  | 'RAILS_INBOUND_EMAIL_PASSWORD'
  | 'RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN'
  | 'INBOUND_SMTP_PORT'
  | 'INBOUND_MAIL_MAX_BYTES'
  | 'IMAP_POLL_SECONDS'
  | 'SES_MAIL_BUCKET'
  | 'SES_MAIL_PREFIX'
  | 'FRONTEND_URL'
  | 'GOOGLE_OAUTH_TOKEN_URL'
  | 'GOOGLE_TRANSLATE_URL'
  | 'CAPTAIN_OPEN_AI_ENDPOINT'
  | 'CAPTAIN_OPEN_AI_MODEL'
  | 'WHATSAPP_CLOUD_BASE_URL'
  | 'DIALOG360_BASE_URL'
  | 'TWILIO_API_BASE_URL'
  | 'TWILIO_CONTENT_BASE_URL'
  | 'BANDWIDTH_API_BASE_URL'
  | 'FB_APP_SECRET'
  | 'TELEGRAM_API_BASE_URL'
  | 'LINE_API_BASE_URL'
  | 'LINE_DATA_API_BASE_URL'
  | 'FACEBOOK_GRAPH_BASE_URL'
  | 'FB_APP_ID'
  | 'FB_VERIFY_TOKEN'
  | 'INSTAGRAM_VERIFY_TOKEN'
  | 'INSTAGRAM_APP_ID'
  | 'INSTAGRAM_APP_SECRET'
  | 'INSTAGRAM_GRAPH_BASE_URL'
  | 'INSTAGRAM_API_BASE_URL'
  | 'ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT'
  | 'ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT'
  | 'CHANNEL_INBOUND_QUEUE_URL'
  | 'CHANNEL_SEND_QUEUE_URL'
  | 'CHANNEL_SEND_RETRY_BASE_SECONDS'
  | 'CHANNEL_MEDIA_MAX_BYTES';

export interface Config {
  tableName: string;
  region: string;
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
  s3Endpoint?: string;
  eventsQueueUrl?: string;
  deliveriesQueueUrl?: string;
  avatarBucket?: string;
  publicBaseUrl: string;
  tokenKey?: string;
  tokenKeySecretArn?: string;
  tokenKeyFile?: string;
  keyringTtlSeconds: number;
  maxBodyBytes: number;
  idBlockSize: number;
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  serviceName: string;
  /** Custom metrics are emitted only where a SERVICE_NAME is set. */
  metricsEnabled: boolean;
  /** Which addresses deliveries may reach (see TargetPolicy in shared/outbound/address-guard.ts). */
  webhookTargets: 'public' | 'loopback' | 'private';
  cableUrl: string;
  limits: {
    account: { perMinute: number; burst: number };
    credential: { perMinute: number; burst: number };
    /** Per client address, on the file route. */
    address: { perMinute: number; burst: number };
    /** Share of a window's quota a container counts before it adds to the shared window; 0 for never. */
    syncShare: number;
  };
  fileUrlTtlSeconds: number;
  frontendUrl: string;
  /** Chatwoot's installation settings of these names (the conversation view shows whether a reply may be tagged). */
  messengerHumanAgent: boolean;
  instagramHumanAgent: boolean;
}

/**
 * Mail: the mail queue, the sender, the outgoing transports and incoming mail; read apart from `Config` (by
 * `mailConfig()`), so that only the functions that send or take in mail carry their ~20 variables
 * (docs/cost.md#cold-start).
 */
export interface MailConfig {
  mailQueueUrl?: string;
  mailerSenderEmail: string;
  mailTransport: 'ses' | 'local' | 'none';
  smtp?: { host: string; port: number; user?: string; pass?: string };
  mailDir?: string;
  inboundMail: {
    domain?: string;
    relayPassword?: string;
    relayPasswordSecretArn?: string;
    smtpPort: number;
    maxBytes: number;
    imapPollSeconds: number;
    ses?: { bucket: string; prefix: string };
  };
}

/**
 * The pipeline's and jobs' settings (webhook deliveries, SLA wake-ups, purges, imports, the audit log's retention,
 * socket frames), read apart from `Config` (by `pipelineConfig()`) like `MailConfig`.
 */
export interface PipelineConfig {
  deliveriesDlqUrl?: string;
  webhookTimeoutMs: number;
  webhookRetryBaseSeconds: number;
  webhookMaxAgeSeconds: number;
  /** EventBridge Scheduler's group, target function and role for SLA wake-ups (deployed only). */
  slaWakeups?: { group: string; functionArn: string; roleArn: string };
  purgeChunkDeletes: number;
  contactImportChunkRows: number;
  auditLogRetentionDays: number;
  cableEndpoint?: string;
  cableQueuePrefix?: string;
}

/**
 * The services and messaging providers the service calls, and the channel queues: read apart from `Config` (by
 * `providerConfig()`), so that only the functions that call them carry their ~30 variables (docs/cost.md#cold-start).
 */
export interface ProviderConfig {
  googleOAuthTokenUrl: string;
  googleTranslateUrl: string;
  captainOpenAiEndpoint: string;
  captainOpenAiModel: string;
  // Messaging channels (docs/channels.md#configuration).
  whatsappCloudBaseUrl: string;
  dialog360BaseUrl: string;
  twilioBaseUrl: string;
  twilioContentBaseUrl: string;
  bandwidthBaseUrl: string;
  fbAppSecret?: string;
  telegramBaseUrl: string;
  lineBaseUrl: string;
  lineDataBaseUrl: string;
  facebookGraphBaseUrl: string;
  fbAppId?: string;
  fbVerifyToken?: string;
  instagramVerifyToken?: string;
  instagramAppId?: string;
  instagramAppSecret?: string;
  instagramGraphBaseUrl: string;
  instagramApiBaseUrl: string;
  channelInboundQueueUrl?: string;
  channelSendQueueUrl?: string;
  channelSendRetryBaseSeconds: number;
  channelMediaMaxBytes: number;
}

type Env = Readonly<Record<string, string | undefined>>;
/** What a reading gives: the value, and the variables whose values are refused. */
export type Reading<T> = { value: T; invalid: EnvName[] };

let cached: Config | undefined;
let cachedProviders: ProviderConfig | undefined;
let cachedMail: MailConfig | undefined;
let cachedPipeline: PipelineConfig | undefined;
let watch: (<T extends object>(plain: T) => T) | undefined;
const watched = new Map<object, object>();

/**
 * Wraps the configurations `config()`, `providerConfig()`, `mailConfig()` and `pipelineConfig()` return from now on (shared/config-reads.ts: the local
 * runtime's recorder sees every field read); undefined stops it. Deployed nothing wraps them: the plain objects.
 */
export function wrapConfig(fn: (<T extends object>(plain: T) => T) | undefined): void {
  watch = fn;
  watched.clear();
}

function watching<T extends object>(plain: T): T {
  if (!watch) return plain;
  let w = watched.get(plain);
  if (!w) watched.set(plain, (w = watch(plain)));
  return w as T;
}

function loaded<T>({ value, invalid }: Reading<T>): T {
  if (invalid.length) throw new Error(`Invalid environment: ${invalid.join(', ')}`);
  return value;
}

export function config(): Config {
  return watching((cached ??= loaded(readConfig(process.env))));
}

export function providerConfig(): ProviderConfig {
  return watching((cachedProviders ??= loaded(readProviderConfig(process.env))));
}

export function mailConfig(): MailConfig {
  return watching((cachedMail ??= loaded(readMailConfig(process.env))));
}

export function pipelineConfig(): PipelineConfig {
  return watching((cachedPipeline ??= loaded(readPipelineConfig(process.env))));
}

/**
 * How a variable is read, each call naming it once; a refused value (a required one absent or empty, an optional one
 * set but empty, a count that is not a whole number ≥ 0, a value outside its choices) is added to `invalid`.
 */
function reader(env: Env, invalid: EnvName[]) {
  const refuse = (name: EnvName) => void invalid.push(name);
  const text = (name: EnvName, fallback: string): string => env[name] ?? fallback;
  const choice = <T extends string>(name: EnvName, choices: readonly T[], fallback: T): T => {
    const s = env[name] ?? fallback;
    if (!(choices as readonly string[]).includes(s)) refuse(name);
    return s as T;
  };
  return {
    refuse,
    text,
    choice,
    required: (name: EnvName): string => {
      const s = env[name];
      if (!s) refuse(name);
      return s ?? '';
    },
    optional: (name: EnvName): string | undefined => {
      const s = env[name];
      if (s === '') refuse(name);
      return s || undefined;
    },
    /** An address without its trailing slash. */
    base: (name: EnvName, fallback: string): string => text(name, fallback).replace(/\/$/, ''),
    count: (name: EnvName, fallback: number): number => {
      const s = env[name];
      if (s === undefined) return fallback;
      const n = Number(s);
      if (!Number.isInteger(n) || n < 0) refuse(name);
      return n;
    },
    flag: (name: EnvName): boolean => choice(name, ['true', 'false'], 'false') === 'true',
  };
}

/** The configuration from `env`. */
export function readConfig(env: Env): Reading<Config> {
  const invalid: EnvName[] = [];
  const { required, optional, text, base, count, choice, flag } = reader(env, invalid);

  // Public address of the service, used in links the API hands out (widget script, avatars).
  const publicBaseUrl = base('PUBLIC_BASE_URL', 'http://127.0.0.1:3000');
  const serviceName = optional('SERVICE_NAME');
  // Non-public webhook targets are refused when deployed. The local runtime allows loopback (local receivers);
  // private, link-local and metadata addresses only when a developer opts in with ALLOW_PRIVATE_WEBHOOK_TARGETS=true.
  const loopbackTargets = flag('ALLOW_LOOPBACK_WEBHOOK_TARGETS');
  const privateTargets = flag('ALLOW_PRIVATE_WEBHOOK_TARGETS');

  const value: Config = {
    tableName: required('TABLE_NAME'),
    region: text('AWS_REGION', 'us-east-1'),
    // Set only where the AWS services are emulated (local runtime, tests).
    dynamodbEndpoint: optional('DYNAMODB_ENDPOINT'),
    sqsEndpoint: optional('SQS_ENDPOINT'),
    s3Endpoint: optional('S3_ENDPOINT'),
    eventsQueueUrl: optional('EVENTS_QUEUE_URL'),
    deliveriesQueueUrl: optional('DELIVERIES_QUEUE_URL'),
    avatarBucket: optional('AVATAR_BUCKET'),
    publicBaseUrl,
    // Key for the encrypted copies of tokens: base64 of 32 bytes locally, a Secrets Manager ARN deployed; locally
    // with a data folder, the key file (it gains versions on rotation, so it is read, not copied).
    tokenKey: optional('TOKEN_KEY'),
    tokenKeySecretArn: optional('TOKEN_KEY_SECRET_ARN'),
    tokenKeyFile: optional('TOKEN_KEY_FILE'),
    // How long a process keeps the loaded sealing keys before it looks for a rotated one.
    keyringTtlSeconds: count('KEYRING_TTL_SECONDS', 300),
    maxBodyBytes: count('MAX_BODY_BYTES', 1024 * 1024),
    idBlockSize: Math.max(1, count('ID_BLOCK_SIZE', 100)),
    logLevel: choice('LOG_LEVEL', ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'], 'INFO'),
    // Deployed: the stack's name, the `service` of log lines and the dimension of the service's metrics.
    serviceName: serviceName ?? 'chatwoot-serverless',
    metricsEnabled: serviceName !== undefined,
    webhookTargets: privateTargets ? 'private' : loopbackTargets ? 'loopback' : 'public',
    // The socket address clients are told (`wss://…/cable`); derived from PUBLIC_BASE_URL when absent.
    cableUrl: optional('CABLE_URL') ?? `${publicBaseUrl.replace(/^http/, 'ws')}/cable`,
    // Request limits (docs/api.md#request-limits): sustained requests per minute and burst, per account and per
    // credential (a public inbox counts as an account, a public contact as a credential), per client address on
    // the file route (signed file links); 0 turns one off. Containers add their counts to a shared per-minute
    // window every LIMIT_SYNC_PERCENT of its quota ('0': never, each container then enforces only its own bucket).
    limits: {
      account: { perMinute: count('LIMIT_ACCOUNT_PER_MINUTE', 6000), burst: count('LIMIT_ACCOUNT_BURST', 1000) },
      credential: { perMinute: count('LIMIT_CREDENTIAL_PER_MINUTE', 3000), burst: count('LIMIT_CREDENTIAL_BURST', 500) },
      address: { perMinute: count('LIMIT_FILE_PER_MINUTE', 600), burst: count('LIMIT_FILE_BURST', 200) },
      syncShare: Math.min(100, count('LIMIT_SYNC_PERCENT', 5)) / 100,
    },
    // How long a signed file link handed out (JSON, webhooks, mail) stays valid, at least: longer than a webhook
    // receiver retries (WEBHOOK_MAX_AGE_SECONDS), so a retried payload's links still work.
    fileUrlTtlSeconds: Math.max(1, count('FILE_URL_TTL_SECONDS', 7 * 24 * 3600)),
    // Chatwoot's FRONTEND_URL: the dashboard's address in mailed links; PUBLIC_BASE_URL when absent.
    frontendUrl: optional('FRONTEND_URL')?.replace(/\/$/, '') ?? publicBaseUrl,
    // Chatwoot's installation settings of the same names: Instagram sends (a page's linked account, an
    // Instagram-login inbox) tagged `HUMAN_AGENT` (docs/channels.md#metas-messaging-windows).
    messengerHumanAgent: flag('ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT'),
    instagramHumanAgent: flag('ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT'),
  };
  return { value, invalid };
}

/** The mail configuration from `env`. */
export function readMailConfig(env: Env): Reading<MailConfig> {
  const invalid: EnvName[] = [];
  const { refuse, optional, text, count, choice } = reader(env, invalid);
  const smtp = {
    host: optional('SMTP_ADDRESS'),
    port: optional('SMTP_PORT'),
    user: optional('SMTP_USERNAME'),
    pass: optional('SMTP_PASSWORD'),
  };
  if (smtp.port !== undefined && !/^\d{1,5}$/.test(smtp.port)) refuse('SMTP_PORT');
  const ses = { bucket: optional('SES_MAIL_BUCKET'), prefix: text('SES_MAIL_PREFIX', 'ses/') };
  const value: MailConfig = {
    // Mail (shared/domain/mail): the mail queue (dispatcher → mail function), the sender, and where mail goes.
    mailQueueUrl: optional('MAIL_QUEUE_URL'),
    // Chatwoot's name for the sender: `Name <address>` or an address.
    mailerSenderEmail: text('MAILER_SENDER_EMAIL', 'Chatwoot <accounts@chatwoot.com>'),
    // Deployed: `ses` (SESv2 SendEmail), or `none` without a sender. Locally the SMTP_* variables, else MAIL_DIR,
    // else the log.
    mailTransport: choice('MAIL_TRANSPORT', ['ses', 'local', 'none'], 'local'),
    smtp: smtp.host && smtp.port ? { host: smtp.host, port: Number(smtp.port), user: smtp.user, pass: smtp.pass } : undefined,
    mailDir: optional('MAIL_DIR'),
    // Incoming mail (docs/mail.md#incoming-mail): the domain of `forward_to_email` addresses and `reply+<uuid>`
    // Reply-Tos (none: no forwarding address, replies carry the inbox's address), the relay ingress's basic-auth
    // password (user `actionmailbox`; none: the route answers 401; deployed, a Secrets Manager secret named by ARN,
    // which the plain password wins over), the local SMTP listener's port (`npm start`), the largest mail taken in,
    // how often IMAP inboxes are polled, and with SES receiving the bucket and prefix its receipt rule stores mails
    // under.
    inboundMail: {
      domain: optional('MAILER_INBOUND_EMAIL_DOMAIN')?.toLowerCase(),
      relayPassword: optional('RAILS_INBOUND_EMAIL_PASSWORD'),
      relayPasswordSecretArn: optional('RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN'),
      smtpPort: count('INBOUND_SMTP_PORT', 2525),
      maxBytes: Math.max(1024, count('INBOUND_MAIL_MAX_BYTES', 30 * 1024 * 1024)),
      imapPollSeconds: Math.max(10, count('IMAP_POLL_SECONDS', 60)),
      ses: ses.bucket ? { bucket: ses.bucket, prefix: ses.prefix } : undefined,
    },
  };
  return { value, invalid };
}

/** The pipeline's configuration from `env`. */
export function readPipelineConfig(env: Env): Reading<PipelineConfig> {
  const invalid: EnvName[] = [];
  const { optional, count } = reader(env, invalid);
  const sla = [optional('SLA_SCHEDULE_GROUP'), optional('SLA_WAKEUP_FUNCTION_ARN'), optional('SLA_WAKEUP_ROLE_ARN')];
  const value: PipelineConfig = {
    deliveriesDlqUrl: optional('DELIVERIES_DLQ_URL'),
    webhookTimeoutMs: Math.max(1, count('WEBHOOK_TIMEOUT_MS', 10_000)),
    // First retry delay; each further attempt doubles it (with jitter), capped at 6 hours.
    webhookRetryBaseSeconds: Math.max(1, count('WEBHOOK_RETRY_BASE_SECONDS', 30)),
    // Deliveries still failing after this long go to the dead-letter queue.
    webhookMaxAgeSeconds: count('WEBHOOK_MAX_AGE_SECONDS', 3 * 24 * 3600),
    // Deployed: SLA deadlines' wake-ups (docs/sla.md), EventBridge Scheduler one-time schedules in this group that
    // invoke this function with this role. Absent, the local runtime's timers (or none: deadlines are then found on
    // the conversation's next change only).
    slaWakeups: sla[0] && sla[1] && sla[2] ? { group: sla[0], functionArn: sla[1], roleArn: sla[2] } : undefined,
    // Deletes one chunk of a deleted account's or inbox's purge may make (shared/domain/purge).
    purgeChunkDeletes: Math.max(1, count('PURGE_CHUNK_DELETES', 400)),
    // Rows one chunk of a contacts import works through (shared/domain/contacts/import.ts).
    contactImportChunkRows: Math.max(1, count('CONTACT_IMPORT_CHUNK_ROWS', 100)),
    // How long an audit log entry is kept (docs/audit.md): it expires (DynamoDB TTL) this many days after its change.
    auditLogRetentionDays: Math.max(1, count('AUDIT_LOG_RETENTION_DAYS', 90)),
    // Deployed: the WebSocket API's management endpoint (PostToConnection); absent, the local server's sockets.
    cableEndpoint: optional('CABLE_ENDPOINT'),
    // Deployed with the Fargate socket server: the prefix of its tasks' queues (`<prefix>cable-<taskId>`), through
    // which the dispatcher sends frames; wins over CABLE_ENDPOINT.
    cableQueuePrefix: optional('CABLE_QUEUE_PREFIX'),
  };
  return { value, invalid };
}

/** The providers' configuration from `env`. */
export function readProviderConfig(env: Env): Reading<ProviderConfig> {
  const invalid: EnvName[] = [];
  const { optional, text, base, count } = reader(env, invalid);
  const value: ProviderConfig = {
    // Google's OAuth token and Cloud Translation endpoints (the google_translate integration); tests point them at
    // loopback.
    googleOAuthTokenUrl: text('GOOGLE_OAUTH_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    googleTranslateUrl: base('GOOGLE_TRANSLATE_URL', 'https://translation.googleapis.com'),
    // Captain's editor tasks (rewrite, summary, reply and label suggestions): an OpenAI-compatible endpoint and
    // model, as Chatwoot's CAPTAIN_OPEN_AI_ENDPOINT installation setting; the key is the account's OpenAI hook's.
    captainOpenAiEndpoint: base('CAPTAIN_OPEN_AI_ENDPOINT', 'https://api.openai.com'),
    captainOpenAiModel: text('CAPTAIN_OPEN_AI_MODEL', 'gpt-4o-mini'),
    // Messaging channels (docs/channels.md): the providers' hosts (tests and staging point them at fakes; the paths
    // after them are the providers' documented ones), the Meta app secret that signs WhatsApp Cloud webhooks
    // (checked when set), the channel queues, the first retry delay of a send that met a provider 429/5xx or a
    // network error (doubling per attempt), and the largest media file downloaded from a provider.
    whatsappCloudBaseUrl: base('WHATSAPP_CLOUD_BASE_URL', 'https://graph.facebook.com'),
    dialog360BaseUrl: base('DIALOG360_BASE_URL', 'https://waba.360dialog.io/v1'),
    twilioBaseUrl: base('TWILIO_API_BASE_URL', 'https://api.twilio.com'),
    // Twilio's Content API (content templates of a Twilio WhatsApp inbox).
    twilioContentBaseUrl: base('TWILIO_CONTENT_BASE_URL', 'https://content.twilio.com'),
    bandwidthBaseUrl: base('BANDWIDTH_API_BASE_URL', 'https://messaging.bandwidth.com/api/v2'),
    fbAppSecret: optional('FB_APP_SECRET'),
    // Telegram's Bot API, LINE's Messaging API and its data API (docs/channels.md#configuration).
    telegramBaseUrl: base('TELEGRAM_API_BASE_URL', 'https://api.telegram.org'),
    lineBaseUrl: base('LINE_API_BASE_URL', 'https://api.line.me'),
    lineDataBaseUrl: base('LINE_DATA_API_BASE_URL', 'https://api-data.line.me'),
    // Facebook Messenger: Graph's host, the Meta app's id (its own sends' echoes name it) and the verify token of
    // `GET /bot` (docs/channels.md#facebook-messenger); the app secret is FB_APP_SECRET.
    facebookGraphBaseUrl: base('FACEBOOK_GRAPH_BASE_URL', 'https://graph.facebook.com'),
    fbAppId: optional('FB_APP_ID'),
    fbVerifyToken: optional('FB_VERIFY_TOKEN'),
    // Instagram (docs/channels.md#instagram): the verify token of `GET /webhooks/instagram`; Instagram's webhooks
    // are signed with FB_APP_SECRET (an Instagram account linked to a page).
    instagramVerifyToken: optional('INSTAGRAM_VERIFY_TOKEN'),
    // The Instagram-login inbox (docs/channels.md#instagram-login): the Instagram app (its id and secret: the OAuth
    // exchange, the `state` signature, its webhooks' signature), Instagram's Graph host (tokens, profile, sends) and
    // its OAuth host.
    instagramAppId: optional('INSTAGRAM_APP_ID'),
    instagramAppSecret: optional('INSTAGRAM_APP_SECRET'),
    instagramGraphBaseUrl: base('INSTAGRAM_GRAPH_BASE_URL', 'https://graph.instagram.com'),
    instagramApiBaseUrl: base('INSTAGRAM_API_BASE_URL', 'https://api.instagram.com'),
    channelInboundQueueUrl: optional('CHANNEL_INBOUND_QUEUE_URL'),
    channelSendQueueUrl: optional('CHANNEL_SEND_QUEUE_URL'),
    channelSendRetryBaseSeconds: Math.max(1, count('CHANNEL_SEND_RETRY_BASE_SECONDS', 30)),
    channelMediaMaxBytes: Math.max(1, count('CHANNEL_MEDIA_MAX_BYTES', 40 * 1024 * 1024)),
  };
  return { value, invalid };
}

/** Forget the cached configuration (tests that change the environment). */
export function resetConfig(): void {
  cached = undefined;
  cachedProviders = undefined;
  cachedMail = undefined;
  cachedPipeline = undefined;
  watched.clear();
}

/**
 * What the Lambda runtime sets per container or per invocation (not configuration: read live, never cached): the
 * container's initialization type (`on-demand`, `provisioned-concurrency`, …) and the invocation's X-Ray trace id
 * (the `Root` of `_X_AMZN_TRACE_ID`). The log lines carry both.
 */
export function lambdaRuntime(): { initializationType: string | undefined; traceId: string | undefined } {
  const trace = process.env._X_AMZN_TRACE_ID;
  return {
    initializationType: process.env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim(),
    traceId: trace ? (trace.includes('=') ? /(?:^|;)Root=([^;]*)/.exec(trace)?.[1] : trace) : undefined,
  };
}
