import * as v from 'valibot';

// The only reader of process.env. Read once, on first use, so that the local runtime and tests can
// set the environment before any handler module asks for it.

const Int = (fallback: number) => v.pipe(v.optional(v.string(), String(fallback)), v.transform(Number), v.integer(), v.minValue(0));

const Optional = v.optional(v.pipe(v.string(), v.minLength(1)));

const EnvSchema = v.object({
  TABLE_NAME: v.pipe(v.string(), v.minLength(1)),
  AWS_REGION: v.optional(v.string(), 'us-east-1'),
  // Set only where the AWS services are emulated (local runtime, tests).
  DYNAMODB_ENDPOINT: Optional,
  SQS_ENDPOINT: Optional,
  S3_ENDPOINT: Optional,
  EVENTS_QUEUE_URL: Optional,
  DELIVERIES_QUEUE_URL: Optional,
  DELIVERIES_DLQ_URL: Optional,
  AVATAR_BUCKET: Optional,
  // Public address of the service, used in links the API hands out (widget script, avatars).
  PUBLIC_BASE_URL: v.optional(v.string(), 'http://127.0.0.1:3000'),
  // Key for the encrypted copies of tokens: base64 of 32 bytes locally, a Secrets Manager ARN deployed.
  TOKEN_KEY: Optional,
  TOKEN_KEY_SECRET_ARN: Optional,
  // Locally with a data folder: the key file (it gains versions on rotation, so it is read, not copied).
  TOKEN_KEY_FILE: Optional,
  // How long a process keeps the loaded sealing keys before it looks for a rotated one.
  KEYRING_TTL_SECONDS: Int(300),
  MAX_BODY_BYTES: Int(1024 * 1024),
  ID_BLOCK_SIZE: Int(100),
  LOG_LEVEL: v.optional(v.picklist(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']), 'INFO'),
  // Deployed: the stack's name, the `service` of log lines and the dimension of the service's metrics.
  SERVICE_NAME: Optional,
  WEBHOOK_TIMEOUT_MS: Int(10_000),
  // First retry delay; each further attempt doubles it (with jitter), capped at 6 hours.
  WEBHOOK_RETRY_BASE_SECONDS: Int(30),
  // Deliveries still failing after this long go to the dead-letter queue.
  WEBHOOK_MAX_AGE_SECONDS: Int(3 * 24 * 3600),
  // Non-public webhook targets are refused when deployed. The local runtime allows loopback (local
  // receivers); private, link-local and metadata addresses only when a developer opts in with
  // ALLOW_PRIVATE_WEBHOOK_TARGETS=true.
  ALLOW_LOOPBACK_WEBHOOK_TARGETS: v.optional(v.picklist(['true', 'false']), 'false'),
  ALLOW_PRIVATE_WEBHOOK_TARGETS: v.optional(v.picklist(['true', 'false']), 'false'),
  // Request limits (docs/api.md#request-limits): sustained requests per minute and burst, per account and per
  // credential (a public inbox counts as an account, a public contact as a credential); 0 turns one off.
  LIMIT_ACCOUNT_PER_MINUTE: Int(6000),
  LIMIT_ACCOUNT_BURST: Int(1000),
  LIMIT_CREDENTIAL_PER_MINUTE: Int(3000),
  LIMIT_CREDENTIAL_BURST: Int(500),
  // Containers add their counts to a shared per-minute window every this percent of its quota ('0': never,
  // each container then enforces only its own bucket).
  LIMIT_SYNC_PERCENT: Int(5),
  // Requests per minute and burst per client address on the file route (signed file links).
  LIMIT_FILE_PER_MINUTE: Int(600),
  LIMIT_FILE_BURST: Int(200),
  // How long a signed file link handed out (JSON, webhooks, mail) stays valid, at least: longer than a
  // webhook receiver retries (WEBHOOK_MAX_AGE_SECONDS), so a retried payload's links still work.
  FILE_URL_TTL_SECONDS: Int(7 * 24 * 3600),
  // Deployed: the WebSocket API's management endpoint (PostToConnection); absent, the local server's sockets.
  CABLE_ENDPOINT: Optional,
  // Deployed with the Fargate socket server: the prefix of its tasks' queues (`<prefix>cable-<taskId>`), through
  // which the dispatcher sends frames; wins over CABLE_ENDPOINT.
  CABLE_QUEUE_PREFIX: Optional,
  // The socket address clients are told (`wss://…/cable`); derived from PUBLIC_BASE_URL when absent.
  CABLE_URL: Optional,
  // Mail (shared/domain/mail): the mail queue (dispatcher → mail function), the sender, and where mail goes.
  MAIL_QUEUE_URL: Optional,
  // Deployed: SLA deadlines' wake-ups (docs/sla.md), EventBridge Scheduler one-time schedules in this group that
  // invoke this function with this role. Absent, the local runtime's timers (or none: deadlines are then found on the
  // conversation's next change only).
  SLA_SCHEDULE_GROUP: Optional,
  SLA_WAKEUP_FUNCTION_ARN: Optional,
  SLA_WAKEUP_ROLE_ARN: Optional,
  // Deletes one chunk of a deleted account's or inbox's purge may make (shared/domain/purge).
  PURGE_CHUNK_DELETES: Int(400),
  // Rows one chunk of a contacts import works through (shared/domain/contacts/import.ts).
  CONTACT_IMPORT_CHUNK_ROWS: Int(100),
  // How long an audit log entry is kept (docs/audit.md): it expires (DynamoDB TTL) this many days after its change.
  AUDIT_LOG_RETENTION_DAYS: Int(90),
  // Chatwoot's name for the sender: `Name <address>` or an address.
  MAILER_SENDER_EMAIL: v.optional(v.string(), 'Chatwoot <accounts@chatwoot.com>'),
  // Deployed: `ses` (SESv2 SendEmail), or `none` without a sender. Locally the SMTP_* variables, else
  // MAIL_DIR, else the log.
  MAIL_TRANSPORT: v.optional(v.picklist(['ses', 'local', 'none']), 'local'),
  SMTP_ADDRESS: Optional,
  SMTP_PORT: v.optional(v.pipe(v.string(), v.regex(/^\d{1,5}$/))),
  SMTP_USERNAME: Optional,
  SMTP_PASSWORD: Optional,
  MAIL_DIR: Optional,
  // Incoming mail (docs/mail.md#incoming-mail): the domain of `forward_to_email` addresses and `reply+<uuid>` Reply-Tos
  // (none: no forwarding address, replies carry the inbox's address), the relay ingress's basic-auth password
  // (user `actionmailbox`; none: the route answers 401), the local SMTP listener's port (`npm start`), the largest
  // mail taken in, and how often IMAP inboxes are polled.
  MAILER_INBOUND_EMAIL_DOMAIN: Optional,
  RAILS_INBOUND_EMAIL_PASSWORD: Optional,
  // Deployed, the relay password is a Secrets Manager secret (its text), named by ARN; RAILS_INBOUND_EMAIL_PASSWORD wins.
  RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN: Optional,
  INBOUND_SMTP_PORT: Int(2525),
  INBOUND_MAIL_MAX_BYTES: Int(30 * 1024 * 1024),
  IMAP_POLL_SECONDS: Int(60),
  // Deployed with SES receiving: the bucket and prefix its receipt rule stores mails under.
  SES_MAIL_BUCKET: Optional,
  SES_MAIL_PREFIX: v.optional(v.string(), 'ses/'),
  // Chatwoot's FRONTEND_URL: the dashboard's address in mailed links; PUBLIC_BASE_URL when absent.
  FRONTEND_URL: Optional,
  // Google's OAuth token and Cloud Translation endpoints (the google_translate integration); tests point them at loopback.
  GOOGLE_OAUTH_TOKEN_URL: v.optional(v.string(), 'https://oauth2.googleapis.com/token'),
  GOOGLE_TRANSLATE_URL: v.optional(v.string(), 'https://translation.googleapis.com'),
  // Captain's editor tasks (rewrite, summary, reply and label suggestions): an OpenAI-compatible endpoint and
  // model, as Chatwoot's CAPTAIN_OPEN_AI_ENDPOINT installation setting; the key is the account's OpenAI hook's.
  CAPTAIN_OPEN_AI_ENDPOINT: v.optional(v.string(), 'https://api.openai.com'),
  CAPTAIN_OPEN_AI_MODEL: v.optional(v.string(), 'gpt-4o-mini'),
  // Messaging channels (docs/channels.md): the providers' hosts (tests and staging point them at fakes; the paths
  // after them are the providers' documented ones), the Meta app secret that signs WhatsApp Cloud webhooks (checked
  // when set), the channel queues, the first retry delay of a send that met a provider 429/5xx or a network error
  // (doubling per attempt), and the largest media file downloaded from a provider.
  WHATSAPP_CLOUD_BASE_URL: v.optional(v.string(), 'https://graph.facebook.com'),
  DIALOG360_BASE_URL: v.optional(v.string(), 'https://waba.360dialog.io/v1'),
  TWILIO_API_BASE_URL: v.optional(v.string(), 'https://api.twilio.com'),
  // Twilio's Content API (content templates of a Twilio WhatsApp inbox).
  TWILIO_CONTENT_BASE_URL: v.optional(v.string(), 'https://content.twilio.com'),
  BANDWIDTH_API_BASE_URL: v.optional(v.string(), 'https://messaging.bandwidth.com/api/v2'),
  FB_APP_SECRET: Optional,
  // Telegram's Bot API, LINE's Messaging API and its data API (docs/channels.md#configuration).
  TELEGRAM_API_BASE_URL: v.optional(v.string(), 'https://api.telegram.org'),
  LINE_API_BASE_URL: v.optional(v.string(), 'https://api.line.me'),
  LINE_DATA_API_BASE_URL: v.optional(v.string(), 'https://api-data.line.me'),
  // Facebook Messenger: Graph's host, the Meta app's id (its own sends' echoes name it) and the verify token of
  // `GET /bot` (docs/channels.md#facebook-messenger); the app secret is FB_APP_SECRET.
  FACEBOOK_GRAPH_BASE_URL: v.optional(v.string(), 'https://graph.facebook.com'),
  FB_APP_ID: Optional,
  FB_VERIFY_TOKEN: Optional,
  // Instagram (docs/channels.md#instagram): the verify token of `GET /webhooks/instagram`; Instagram's webhooks are
  // signed with FB_APP_SECRET (an Instagram account linked to a page).
  INSTAGRAM_VERIFY_TOKEN: Optional,
  // The Instagram-login inbox (docs/channels.md#instagram-login): the Instagram app (its id and secret: the OAuth
  // exchange, the `state` signature, its webhooks' signature), Instagram's Graph host (tokens, profile, sends) and its
  // OAuth host.
  INSTAGRAM_APP_ID: Optional,
  INSTAGRAM_APP_SECRET: Optional,
  INSTAGRAM_GRAPH_BASE_URL: v.optional(v.string(), 'https://graph.instagram.com'),
  INSTAGRAM_API_BASE_URL: v.optional(v.string(), 'https://api.instagram.com'),
  // Chatwoot's installation settings of the same names: Instagram sends (a page's linked account, an Instagram-login
  // inbox) tagged `HUMAN_AGENT` (docs/channels.md#metas-messaging-windows).
  ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT: v.optional(v.picklist(['true', 'false']), 'false'),
  ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT: v.optional(v.picklist(['true', 'false']), 'false'),
  CHANNEL_INBOUND_QUEUE_URL: Optional,
  CHANNEL_SEND_QUEUE_URL: Optional,
  CHANNEL_SEND_RETRY_BASE_SECONDS: Int(30),
  CHANNEL_MEDIA_MAX_BYTES: Int(40 * 1024 * 1024),
});

export interface Config {
  tableName: string;
  region: string;
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
  s3Endpoint?: string;
  eventsQueueUrl?: string;
  deliveriesQueueUrl?: string;
  deliveriesDlqUrl?: string;
  webhookTimeoutMs: number;
  webhookRetryBaseSeconds: number;
  webhookMaxAgeSeconds: number;
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
  cableEndpoint?: string;
  cableQueuePrefix?: string;
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
  mailQueueUrl?: string;
  /** EventBridge Scheduler's group, target function and role for SLA wake-ups (deployed only). */
  slaWakeups?: { group: string; functionArn: string; roleArn: string };
  purgeChunkDeletes: number;
  contactImportChunkRows: number;
  auditLogRetentionDays: number;
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
  frontendUrl: string;
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
  messengerHumanAgent: boolean;
  instagramHumanAgent: boolean;
  channelInboundQueueUrl?: string;
  channelSendQueueUrl?: string;
  channelSendRetryBaseSeconds: number;
  channelMediaMaxBytes: number;
}

/** Every variable the schema knows. */
export const ENV_NAMES = Object.keys(EnvSchema.entries) as (keyof typeof EnvSchema.entries)[];

/** The schema's name of every variable. */
export type EnvName = keyof v.InferInput<typeof EnvSchema>;

let cached: Config | undefined;
let watch: ((plain: Config) => Config) | undefined;
let watched: Config | undefined;

/**
 * Wraps the configuration `config()` returns from now on (shared/config-reads.ts: the local runtime's recorder sees
 * every field read); undefined stops it. Deployed nothing wraps it and `config()` returns the plain object.
 */
export function wrapConfig(fn: ((plain: Config) => Config) | undefined): void {
  watch = fn;
  watched = undefined;
}

export function config(): Config {
  if (watch) return (watched ??= watch(load()));
  return load();
}

function load(): Config {
  if (cached) return cached;
  const parsed = v.safeParse(EnvSchema, process.env);
  if (!parsed.success) {
    const names = parsed.issues.map((i) => v.getDotPath(i) ?? '?').join(', ');
    throw new Error(`Invalid environment: ${names}`);
  }
  const e = parsed.output;
  cached = {
    tableName: e.TABLE_NAME,
    region: e.AWS_REGION,
    dynamodbEndpoint: e.DYNAMODB_ENDPOINT,
    sqsEndpoint: e.SQS_ENDPOINT,
    s3Endpoint: e.S3_ENDPOINT,
    eventsQueueUrl: e.EVENTS_QUEUE_URL,
    deliveriesQueueUrl: e.DELIVERIES_QUEUE_URL,
    deliveriesDlqUrl: e.DELIVERIES_DLQ_URL,
    webhookTimeoutMs: Math.max(1, e.WEBHOOK_TIMEOUT_MS),
    webhookRetryBaseSeconds: Math.max(1, e.WEBHOOK_RETRY_BASE_SECONDS),
    webhookMaxAgeSeconds: e.WEBHOOK_MAX_AGE_SECONDS,
    avatarBucket: e.AVATAR_BUCKET,
    publicBaseUrl: e.PUBLIC_BASE_URL.replace(/\/$/, ''),
    tokenKey: e.TOKEN_KEY,
    tokenKeySecretArn: e.TOKEN_KEY_SECRET_ARN,
    tokenKeyFile: e.TOKEN_KEY_FILE,
    keyringTtlSeconds: Math.max(0, e.KEYRING_TTL_SECONDS),
    maxBodyBytes: e.MAX_BODY_BYTES,
    idBlockSize: Math.max(1, e.ID_BLOCK_SIZE),
    logLevel: e.LOG_LEVEL,
    serviceName: e.SERVICE_NAME ?? 'chatwoot-serverless',
    metricsEnabled: e.SERVICE_NAME !== undefined,
    webhookTargets:
      e.ALLOW_PRIVATE_WEBHOOK_TARGETS === 'true' ? 'private' : e.ALLOW_LOOPBACK_WEBHOOK_TARGETS === 'true' ? 'loopback' : 'public',
    cableEndpoint: e.CABLE_ENDPOINT,
    cableQueuePrefix: e.CABLE_QUEUE_PREFIX,
    limits: {
      account: { perMinute: e.LIMIT_ACCOUNT_PER_MINUTE, burst: e.LIMIT_ACCOUNT_BURST },
      credential: { perMinute: e.LIMIT_CREDENTIAL_PER_MINUTE, burst: e.LIMIT_CREDENTIAL_BURST },
      address: { perMinute: e.LIMIT_FILE_PER_MINUTE, burst: e.LIMIT_FILE_BURST },
      syncShare: Math.min(100, e.LIMIT_SYNC_PERCENT) / 100,
    },
    fileUrlTtlSeconds: Math.max(1, e.FILE_URL_TTL_SECONDS),
    cableUrl: e.CABLE_URL ?? `${e.PUBLIC_BASE_URL.replace(/\/$/, '').replace(/^http/, 'ws')}/cable`,
    mailQueueUrl: e.MAIL_QUEUE_URL,
    slaWakeups:
      e.SLA_SCHEDULE_GROUP && e.SLA_WAKEUP_FUNCTION_ARN && e.SLA_WAKEUP_ROLE_ARN
        ? { group: e.SLA_SCHEDULE_GROUP, functionArn: e.SLA_WAKEUP_FUNCTION_ARN, roleArn: e.SLA_WAKEUP_ROLE_ARN }
        : undefined,
    purgeChunkDeletes: Math.max(1, e.PURGE_CHUNK_DELETES),
    contactImportChunkRows: Math.max(1, e.CONTACT_IMPORT_CHUNK_ROWS),
    auditLogRetentionDays: Math.max(1, e.AUDIT_LOG_RETENTION_DAYS),
    mailerSenderEmail: e.MAILER_SENDER_EMAIL,
    mailTransport: e.MAIL_TRANSPORT,
    smtp:
      e.SMTP_ADDRESS && e.SMTP_PORT
        ? { host: e.SMTP_ADDRESS, port: Number(e.SMTP_PORT), user: e.SMTP_USERNAME, pass: e.SMTP_PASSWORD }
        : undefined,
    mailDir: e.MAIL_DIR,
    inboundMail: {
      domain: e.MAILER_INBOUND_EMAIL_DOMAIN?.toLowerCase(),
      relayPassword: e.RAILS_INBOUND_EMAIL_PASSWORD,
      relayPasswordSecretArn: e.RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN,
      smtpPort: e.INBOUND_SMTP_PORT,
      maxBytes: Math.max(1024, e.INBOUND_MAIL_MAX_BYTES),
      imapPollSeconds: Math.max(10, e.IMAP_POLL_SECONDS),
      ses: e.SES_MAIL_BUCKET ? { bucket: e.SES_MAIL_BUCKET, prefix: e.SES_MAIL_PREFIX } : undefined,
    },
    frontendUrl: (e.FRONTEND_URL ?? e.PUBLIC_BASE_URL).replace(/\/$/, ''),
    googleOAuthTokenUrl: e.GOOGLE_OAUTH_TOKEN_URL,
    googleTranslateUrl: e.GOOGLE_TRANSLATE_URL.replace(/\/$/, ''),
    captainOpenAiEndpoint: e.CAPTAIN_OPEN_AI_ENDPOINT.replace(/\/$/, ''),
    captainOpenAiModel: e.CAPTAIN_OPEN_AI_MODEL,
    whatsappCloudBaseUrl: e.WHATSAPP_CLOUD_BASE_URL.replace(/\/$/, ''),
    dialog360BaseUrl: e.DIALOG360_BASE_URL.replace(/\/$/, ''),
    twilioBaseUrl: e.TWILIO_API_BASE_URL.replace(/\/$/, ''),
    twilioContentBaseUrl: e.TWILIO_CONTENT_BASE_URL.replace(/\/$/, ''),
    bandwidthBaseUrl: e.BANDWIDTH_API_BASE_URL.replace(/\/$/, ''),
    fbAppSecret: e.FB_APP_SECRET,
    telegramBaseUrl: e.TELEGRAM_API_BASE_URL.replace(/\/$/, ''),
    lineBaseUrl: e.LINE_API_BASE_URL.replace(/\/$/, ''),
    lineDataBaseUrl: e.LINE_DATA_API_BASE_URL.replace(/\/$/, ''),
    facebookGraphBaseUrl: e.FACEBOOK_GRAPH_BASE_URL.replace(/\/$/, ''),
    fbAppId: e.FB_APP_ID,
    fbVerifyToken: e.FB_VERIFY_TOKEN,
    instagramVerifyToken: e.INSTAGRAM_VERIFY_TOKEN,
    instagramAppId: e.INSTAGRAM_APP_ID,
    instagramAppSecret: e.INSTAGRAM_APP_SECRET,
    instagramGraphBaseUrl: e.INSTAGRAM_GRAPH_BASE_URL.replace(/\/$/, ''),
    instagramApiBaseUrl: e.INSTAGRAM_API_BASE_URL.replace(/\/$/, ''),
    messengerHumanAgent: e.ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT === 'true',
    instagramHumanAgent: e.ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT === 'true',
    channelInboundQueueUrl: e.CHANNEL_INBOUND_QUEUE_URL,
    channelSendQueueUrl: e.CHANNEL_SEND_QUEUE_URL,
    channelSendRetryBaseSeconds: Math.max(1, e.CHANNEL_SEND_RETRY_BASE_SECONDS),
    channelMediaMaxBytes: Math.max(1, e.CHANNEL_MEDIA_MAX_BYTES),
  };
  return cached;
}

/** Forget the cached configuration (tests that change the environment). */
export function resetConfig(): void {
  cached = undefined;
  watched = undefined;
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
