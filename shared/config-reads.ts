import { type Config, type EnvName, type MailConfig, type PipelineConfig, type ProviderConfig, wrapConfig } from './config.ts';

// Which environment variables a function reads, for the deploy proof: the local runtime's recorder watches every
// field read. Apart from shared/config.ts so that no deployed function carries the map (~3 KiB minified).

/**
 * The environment variables each field of `config()`, `providerConfig()`, `mailConfig()` and `pipelineConfig()` comes from (the deploy proof checks them
 * against the template).
 */
export const ENV_OF: Record<keyof Config | keyof ProviderConfig | keyof MailConfig | keyof PipelineConfig, EnvName[]> = {
  tableName: ['TABLE_NAME'],
  region: ['AWS_REGION'],
  dynamodbEndpoint: ['DYNAMODB_ENDPOINT'],
  sqsEndpoint: ['SQS_ENDPOINT'],
  s3Endpoint: ['S3_ENDPOINT'],
  eventsQueueUrl: ['EVENTS_QUEUE_URL'],
  deliveriesQueueUrl: ['DELIVERIES_QUEUE_URL'],
  deliveriesDlqUrl: ['DELIVERIES_DLQ_URL'],
  webhookTimeoutMs: ['WEBHOOK_TIMEOUT_MS'],
  webhookRetryBaseSeconds: ['WEBHOOK_RETRY_BASE_SECONDS'],
  webhookMaxAgeSeconds: ['WEBHOOK_MAX_AGE_SECONDS'],
  avatarBucket: ['AVATAR_BUCKET'],
  publicBaseUrl: ['PUBLIC_BASE_URL'],
  tokenKey: ['TOKEN_KEY'],
  tokenKeySecretArn: ['TOKEN_KEY_SECRET_ARN'],
  tokenKeyFile: ['TOKEN_KEY_FILE'],
  keyringTtlSeconds: ['KEYRING_TTL_SECONDS'],
  maxBodyBytes: ['MAX_BODY_BYTES'],
  idBlockSize: ['ID_BLOCK_SIZE'],
  logLevel: ['LOG_LEVEL'],
  serviceName: ['SERVICE_NAME'],
  metricsEnabled: ['SERVICE_NAME'],
  webhookTargets: ['ALLOW_PRIVATE_WEBHOOK_TARGETS', 'ALLOW_LOOPBACK_WEBHOOK_TARGETS'],
  cableEndpoint: ['CABLE_ENDPOINT'],
  cableQueuePrefix: ['CABLE_QUEUE_PREFIX'],
  cableUrl: ['CABLE_URL', 'PUBLIC_BASE_URL'],
  googleOAuthTokenUrl: ['GOOGLE_OAUTH_TOKEN_URL'],
  googleTranslateUrl: ['GOOGLE_TRANSLATE_URL'],
  captainOpenAiEndpoint: ['CAPTAIN_OPEN_AI_ENDPOINT'],
  captainOpenAiModel: ['CAPTAIN_OPEN_AI_MODEL'],
  limits: [
    'LIMIT_ACCOUNT_PER_MINUTE',
    'LIMIT_ACCOUNT_BURST',
    'LIMIT_CREDENTIAL_PER_MINUTE',
    'LIMIT_CREDENTIAL_BURST',
    'LIMIT_FILE_PER_MINUTE',
    'LIMIT_FILE_BURST',
    'LIMIT_SYNC_PERCENT',
  ],
  fileUrlTtlSeconds: ['FILE_URL_TTL_SECONDS'],
  mailQueueUrl: ['MAIL_QUEUE_URL'],
  slaWakeups: ['SLA_SCHEDULE_GROUP', 'SLA_WAKEUP_FUNCTION_ARN', 'SLA_WAKEUP_ROLE_ARN'],
  purgeChunkDeletes: ['PURGE_CHUNK_DELETES'],
  contactImportChunkRows: ['CONTACT_IMPORT_CHUNK_ROWS'],
  auditLogRetentionDays: ['AUDIT_LOG_RETENTION_DAYS'],
  mailerSenderEmail: ['MAILER_SENDER_EMAIL'],
  mailTransport: ['MAIL_TRANSPORT'],
  smtp: ['SMTP_ADDRESS', 'SMTP_PORT', 'SMTP_USERNAME', 'SMTP_PASSWORD'],
  mailDir: ['MAIL_DIR'],
  inboundMail: [
    'MAILER_INBOUND_EMAIL_DOMAIN',
    'RAILS_INBOUND_EMAIL_PASSWORD',
    'RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN',
    'INBOUND_SMTP_PORT',
    'INBOUND_MAIL_MAX_BYTES',
    'IMAP_POLL_SECONDS',
    'SES_MAIL_BUCKET',
    'SES_MAIL_PREFIX',
  ],
  frontendUrl: ['FRONTEND_URL', 'PUBLIC_BASE_URL'],
  whatsappCloudBaseUrl: ['WHATSAPP_CLOUD_BASE_URL'],
  dialog360BaseUrl: ['DIALOG360_BASE_URL'],
  twilioBaseUrl: ['TWILIO_API_BASE_URL'],
  twilioContentBaseUrl: ['TWILIO_CONTENT_BASE_URL'],
  bandwidthBaseUrl: ['BANDWIDTH_API_BASE_URL'],
  fbAppSecret: ['FB_APP_SECRET'],
  telegramBaseUrl: ['TELEGRAM_API_BASE_URL'],
  lineBaseUrl: ['LINE_API_BASE_URL'],
  lineDataBaseUrl: ['LINE_DATA_API_BASE_URL'],
  facebookGraphBaseUrl: ['FACEBOOK_GRAPH_BASE_URL'],
  fbAppId: ['FB_APP_ID'],
  fbVerifyToken: ['FB_VERIFY_TOKEN'],
  instagramVerifyToken: ['INSTAGRAM_VERIFY_TOKEN'],
  instagramAppId: ['INSTAGRAM_APP_ID'],
  instagramAppSecret: ['INSTAGRAM_APP_SECRET'],
  instagramGraphBaseUrl: ['INSTAGRAM_GRAPH_BASE_URL'],
  instagramApiBaseUrl: ['INSTAGRAM_API_BASE_URL'],
  messengerHumanAgent: ['ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT'],
  instagramHumanAgent: ['ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT'],
  channelInboundQueueUrl: ['CHANNEL_INBOUND_QUEUE_URL'],
  channelSendQueueUrl: ['CHANNEL_SEND_QUEUE_URL'],
  channelSendRetryBaseSeconds: ['CHANNEL_SEND_RETRY_BASE_SECONDS'],
  channelMediaMaxBytes: ['CHANNEL_MEDIA_MAX_BYTES'],
};

/** Every variable the configuration reads. */
export const ENV_NAMES: EnvName[] = [...new Set(Object.values(ENV_OF).flat())];

/**
 * Tells `fn` the variables behind every field read from now on (the local runtime's recorder, for the deploy
 * proof); undefined stops it.
 */
export function observeConfigReads(fn: ((variables: string[]) => void) | undefined): void {
  wrapConfig(
    fn &&
      (<T extends object>(plain: T) =>
        new Proxy(plain, {
          get(target, field, receiver) {
            const names = ENV_OF[field as keyof typeof ENV_OF];
            if (names) fn(names);
            return Reflect.get(target, field, receiver);
          },
        })),
  );
}
