import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { IEventSourceDlq } from 'aws-cdk-lib/aws-lambda';
import { acknowledge, grantTableData } from './grants.ts';
import { functionOptions, type FunctionSettings } from './logs.ts';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TYPE_ATTRIBUTE } from '#shared/db/table.ts';
import { STREAM_SOURCE_TYPES } from '#shared/model/change.ts';
import type { FunctionBundles } from '../bundles.ts';
import { consumerTimeoutSeconds, EVENT_FUNCTION_NAMES, QUEUE_SOURCES, QUEUES, STREAM_SOURCE } from '../pipeline.ts';

const consumerTimeout = (visibilityTimeoutSeconds: number) => Duration.seconds(consumerTimeoutSeconds(visibilityTimeoutSeconds));

const RETENTION = Duration.days(14);

export interface EventPipelineProps {
  table: dynamodb.ITable;
  /** Prebuilt bundles by function name (infra/build.ts). */
  bundles: FunctionBundles;
  publicBaseUrl: string;
  /** Runtime, memory, log retention, tracing and log level of the pipeline's functions. */
  functions: FunctionSettings;
  /** Concurrency cap of the deliver function's queue consumer (protects receivers and the account). @default 50 */
  deliverMaxConcurrency?: number;
  /** The token key secret: the dispatcher signs agent-bot deliveries with the bot's own token. */
  tokenKey: secretsmanager.ISecret;
  /** The SES sender (`Name <address>` or an address). @default none: mail requests are dropped with a warning */
  mailerSenderEmail?: string;
  /** The dashboard's address in mailed links. @default publicBaseUrl */
  frontendUrl?: string;
  /** The files bucket (attachments, avatars): the purge of a deleted account or inbox removes its files. */
  files: s3.IBucket;
  /** Server access logs of the stream's failure bucket go here (prefix `stream-failures/`). */
  accessLogs?: s3.IBucket;
  /** Of the stream's failure bucket. @default RETAIN */
  removalPolicy?: RemovalPolicy;
  /** The messaging channels' settings (docs/channels.md#configuration): provider hosts (fakes in staging). */
  channels?: ChannelSettings;
}

/** The providers' hosts (each replaces the provider's host only) and a send's first retry delay. */
export interface ChannelSettings {
  whatsappCloudBaseUrl?: string;
  dialog360BaseUrl?: string;
  twilioApiBaseUrl?: string;
  twilioContentBaseUrl?: string;
  bandwidthApiBaseUrl?: string;
  telegramApiBaseUrl?: string;
  lineApiBaseUrl?: string;
  lineDataApiBaseUrl?: string;
  facebookGraphBaseUrl?: string;
  /**
   * The Meta app (docs/channels.md#facebook-messenger): its secret signs WhatsApp Cloud and Messenger webhooks and
   * proves Messenger sends (`appsecret_proof`); its id names its own sends' echoes; the verify token answers `GET /bot`.
   */
  fbAppSecret?: string;
  fbAppId?: string;
  fbVerifyToken?: string;
  /** The verify token `GET /webhooks/instagram` answers. */
  instagramVerifyToken?: string;
  /** The Instagram app of Instagram-login inboxes (docs/channels.md#instagram-login). */
  instagramAppId?: string;
  instagramAppSecret?: string;
  instagramGraphBaseUrl?: string;
  instagramApiBaseUrl?: string;
  /** Chatwoot's HUMAN_AGENT settings: Instagram sends tagged `HUMAN_AGENT`. */
  messengerHumanAgent?: boolean;
  instagramHumanAgent?: boolean;
  /** First retry of a send that met a provider 429/5xx, doubling per attempt. @default 30 s */
  sendRetryBase?: Duration;
}

/** The environment of the functions that call providers. */
export function channelEnvironment(c: ChannelSettings = {}): Record<string, string> {
  const out: Record<string, string> = {};
  if (c.whatsappCloudBaseUrl) out.WHATSAPP_CLOUD_BASE_URL = c.whatsappCloudBaseUrl;
  if (c.dialog360BaseUrl) out.DIALOG360_BASE_URL = c.dialog360BaseUrl;
  if (c.twilioApiBaseUrl) out.TWILIO_API_BASE_URL = c.twilioApiBaseUrl;
  if (c.twilioContentBaseUrl) out.TWILIO_CONTENT_BASE_URL = c.twilioContentBaseUrl;
  if (c.bandwidthApiBaseUrl) out.BANDWIDTH_API_BASE_URL = c.bandwidthApiBaseUrl;
  if (c.telegramApiBaseUrl) out.TELEGRAM_API_BASE_URL = c.telegramApiBaseUrl;
  if (c.lineApiBaseUrl) out.LINE_API_BASE_URL = c.lineApiBaseUrl;
  if (c.lineDataApiBaseUrl) out.LINE_DATA_API_BASE_URL = c.lineDataApiBaseUrl;
  if (c.facebookGraphBaseUrl) out.FACEBOOK_GRAPH_BASE_URL = c.facebookGraphBaseUrl;
  if (c.fbAppSecret) out.FB_APP_SECRET = c.fbAppSecret;
  if (c.fbAppId) out.FB_APP_ID = c.fbAppId;
  if (c.fbVerifyToken) out.FB_VERIFY_TOKEN = c.fbVerifyToken;
  if (c.instagramVerifyToken) out.INSTAGRAM_VERIFY_TOKEN = c.instagramVerifyToken;
  if (c.instagramAppId) out.INSTAGRAM_APP_ID = c.instagramAppId;
  if (c.instagramAppSecret) out.INSTAGRAM_APP_SECRET = c.instagramAppSecret;
  if (c.instagramGraphBaseUrl) out.INSTAGRAM_GRAPH_BASE_URL = c.instagramGraphBaseUrl;
  if (c.instagramApiBaseUrl) out.INSTAGRAM_API_BASE_URL = c.instagramApiBaseUrl;
  if (c.messengerHumanAgent) out.ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT = 'true';
  if (c.instagramHumanAgent) out.ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT = 'true';
  if (c.sendRetryBase) out.CHANNEL_SEND_RETRY_BASE_SECONDS = String(c.sendRetryBase.toSeconds());
  return out;
}

/** `Name <address>` or `address` → the address. */
const addressOf = (sender: string) => (/<([^<>]+)>\s*$/.exec(sender)?.[1] ?? sender).trim();

/**
 * table stream → stream fn → events queue (FIFO, group = item collection) → dispatch fn →
 * deliveries queue → deliver fn → receivers. Every queue has a dead-letter queue with an alarm.
 * Each function has its own role with only what its step needs.
 */
export class EventPipeline extends Construct {
  readonly eventsQueue: sqs.Queue;
  readonly eventsDlq: sqs.Queue;
  readonly deliveriesQueue: sqs.Queue;
  readonly deliveriesDlq: sqs.Queue;
  readonly mailQueue: sqs.Queue;
  readonly mailDlq: sqs.Queue;
  readonly mailFunction: lambda.Function;
  /** Provider webhooks waiting to be processed (FIFO, grouped by inbox and contact). */
  readonly channelInboundQueue: sqs.Queue;
  readonly channelInboundDlq: sqs.Queue;
  /** Outgoing channel messages waiting to be sent (FIFO, grouped by conversation). */
  readonly channelSendQueue: sqs.Queue;
  readonly channelSendDlq: sqs.Queue;
  readonly channelInboundFunction: lambda.Function;
  readonly channelSendFunction: lambda.Function;
  /**
   * The stream mapping's on-failure destination: one object per record that exhausted its retries (bisected),
   * Lambda's invocation record with the record itself as its payload.
   */
  readonly streamFailureBucket: s3.Bucket;
  /**
   * The failure bucket's notifications, one per object: alarmed on, and read by `npm run replay --
   * stream-failures`, which forwards the object's record again and deletes it.
   */
  readonly streamFailures: sqs.Queue;
  readonly streamFunction: lambda.Function;
  readonly dispatchFunction: lambda.Function;
  readonly deliverFunction: lambda.Function;
  /** SLA deadlines (docs/sla.md#deadlines-on-time): the wake-up function, the schedules' group and the role they invoke it with. */
  readonly slaWakeupFunction: lambda.Function;
  readonly slaWakeupDlq: sqs.Queue;
  readonly slaScheduleGroup: scheduler.CfnScheduleGroup;
  readonly slaSchedulerRole: iam.Role;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: EventPipelineProps) {
    super(scope, id);
    const queueDefaults = { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true };

    this.eventsDlq = new sqs.Queue(this, 'EventsDlq', { ...queueDefaults, fifo: true, retentionPeriod: RETENTION });
    this.eventsQueue = new sqs.Queue(this, 'Events', {
      ...queueDefaults,
      fifo: true,
      // The stream record id is the deduplication id: a retried forward of the same change is dropped.
      contentBasedDeduplication: false,
      // High-throughput FIFO: ordering is only needed within an item collection (message group).
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(QUEUES.events.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.eventsDlq, maxReceiveCount: QUEUES.events.maxReceiveCount },
    });
    this.deliveriesDlq = new sqs.Queue(this, 'DeliveriesDlq', {
      ...queueDefaults,
      fifo: QUEUES.deliveries.fifo,
      retentionPeriod: RETENTION,
    });
    this.deliveriesQueue = new sqs.Queue(this, 'Deliveries', {
      ...queueDefaults,
      // Ordered per receiver and conversation (message group); groups are independent.
      fifo: QUEUES.deliveries.fifo,
      contentBasedDeduplication: false,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(QUEUES.deliveries.visibilityTimeoutSeconds),
      // Webhooks are retried for ~3 days before they are dead-lettered: messages must outlive that.
      retentionPeriod: RETENTION,
      deadLetterQueue: { queue: this.deliveriesDlq, maxReceiveCount: QUEUES.deliveries.maxReceiveCount },
    });
    this.mailDlq = new sqs.Queue(this, 'MailDlq', { ...queueDefaults, fifo: QUEUES.mail.fifo, retentionPeriod: RETENTION });
    this.mailQueue = new sqs.Queue(this, 'Mail', {
      ...queueDefaults,
      // FIFO for deduplication only: every mail is its own group.
      fifo: QUEUES.mail.fifo,
      contentBasedDeduplication: false,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(QUEUES.mail.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.mailDlq, maxReceiveCount: QUEUES.mail.maxReceiveCount },
    });
    const fifoQueue = (name: string, def: (typeof QUEUES)['channelInbound' | 'channelSend']) => {
      const dlq = new sqs.Queue(this, `${name}Dlq`, { ...queueDefaults, fifo: true, retentionPeriod: RETENTION });
      const queue = new sqs.Queue(this, name, {
        ...queueDefaults,
        fifo: true,
        contentBasedDeduplication: false,
        deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
        fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        retentionPeriod: RETENTION,
        deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
      });
      return [queue, dlq] as const;
    };
    [this.channelInboundQueue, this.channelInboundDlq] = fifoQueue('ChannelInbound', QUEUES.channelInbound);
    [this.channelSendQueue, this.channelSendDlq] = fifoQueue('ChannelSend', QUEUES.channelSend);
    this.streamFailures = new sqs.Queue(this, 'StreamFailures', { ...queueDefaults, retentionPeriod: RETENTION });
    const failureRetention = Duration.days(STREAM_SOURCE.failureDestination.retentionDays);
    this.streamFailureBucket = new s3.Bucket(this, 'StreamFailureBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Failed records are replayable as long as their notification stays on the queue.
      lifecycleRules: [{ expiration: failureRetention }],
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      ...(props.accessLogs ? { serverAccessLogsBucket: props.accessLogs, serverAccessLogsPrefix: 'stream-failures/' } : {}),
    });
    // Each new object is announced on the failure queue. Set on the bucket itself rather than through
    // CDK's notifications custom resource (one more function and role); S3 checks it may send when the
    // bucket is created, so the queue policy comes first and names the account, not the bucket (which
    // would make a cycle).
    this.streamFailures.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('s3.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.streamFailures.queueArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    const cfnBucket = this.streamFailureBucket.node.defaultChild as s3.CfnBucket;
    cfnBucket.notificationConfiguration = {
      queueConfigurations: [{ event: 's3:ObjectCreated:*', queue: this.streamFailures.queueArn }],
    };
    const queuePolicy = this.streamFailures.node.tryFindChild('Policy');
    if (queuePolicy) this.streamFailureBucket.node.addDependency(queuePolicy);

    const environment = {
      TABLE_NAME: props.table.tableName,
      EVENTS_QUEUE_URL: this.eventsQueue.queueUrl,
      DELIVERIES_QUEUE_URL: this.deliveriesQueue.queueUrl,
      PUBLIC_BASE_URL: props.publicBaseUrl,
      LOG_LEVEL: props.functions.logLevel,
    };
    const fn = (
      key: keyof typeof EVENT_FUNCTION_NAMES,
      timeout: Duration,
      description: string,
      extraEnv: Record<string, string> = {},
      deadLetterQueue?: sqs.IQueue,
    ) => {
      const name = EVENT_FUNCTION_NAMES[key];
      const bundle = props.bundles[name];
      if (!bundle) throw new Error(`No bundle for ${name}: run buildFunctions() first`);
      return new lambda.Function(this, name, {
        ...functionOptions(this, name, props.functions),
        description,
        code: lambda.Code.fromAsset(bundle.dir),
        handler: 'index.handler',
        timeout,
        environment: { ...environment, ...extraEnv },
        ...(deadLetterQueue ? { deadLetterQueue } : {}),
      });
    };

    // Stream → events queue. Role: read the stream (granted by the event source), send to the events
    // queue, and put objects in the failure bucket (granted by S3OnFailureDestination).
    this.streamFunction = fn('stream', Duration.seconds(30), 'Table stream to events queue');
    this.eventsQueue.grantSendMessages(this.streamFunction);
    // Its audit stage writes the audit entries (docs/audit.md).
    grantTableData(props.table, this.streamFunction, 'write');
    // Only item types that can mean an event or are audited invoke the function (the forwarder's own lists).
    const eventSource = { S: STREAM_SOURCE_TYPES };
    // Lambda's S3 destination: it needs to put objects and list the bucket (CDK's S3OnFailureDestination would
    // grant read, write and delete of every object).
    const bucket = this.streamFailureBucket;
    const failureDestination: IEventSourceDlq = {
      bind: (_mapping, target) => {
        target.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [bucket.arnForObjects('aws/lambda/*')] }));
        target.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
        return { destination: bucket.bucketArn };
      },
    };
    const bucketId = Stack.of(this).resolve((bucket.node.defaultChild as s3.CfnBucket).logicalId);
    acknowledge(this.streamFunction, {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/aws/lambda/*]`]:
        'Lambda names the failure objects itself (mapping, shard, time, random id): the grant covers its prefix of the one failure bucket',
    });
    this.streamFunction.addEventSource(
      new DynamoEventSource(props.table, {
        // One settings object with the local poller: a record that keeps failing is isolated by bisection
        // and goes alone to the failure queue; its neighbours are forwarded.
        startingPosition: lambda.StartingPosition[STREAM_SOURCE.startingPosition],
        batchSize: STREAM_SOURCE.batchSize,
        parallelizationFactor: STREAM_SOURCE.parallelizationFactor,
        bisectBatchOnError: STREAM_SOURCE.bisectBatchOnFunctionError,
        retryAttempts: STREAM_SOURCE.retryAttempts,
        reportBatchItemFailures: STREAM_SOURCE.reportBatchItemFailures,
        maxRecordAge: Duration.seconds(STREAM_SOURCE.maxRecordAgeSeconds),
        onFailure: failureDestination,
        // Inserts and updates are judged by their new image, removals by their old one (they have no new
        // image, and a pattern on a missing field never matches). Items without a type never match either.
        filters: [
          lambda.FilterCriteria.filter({ eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { [TYPE_ATTRIBUTE]: eventSource } } }),
          lambda.FilterCriteria.filter({ eventName: ['REMOVE'], dynamodb: { OldImage: { [TYPE_ATTRIBUTE]: eventSource } } }),
        ],
      }),
    );

    // Events queue → deliveries. Role: table read/write, consume events, send deliveries.
    this.dispatchFunction = fn(
      'dispatch',
      consumerTimeout(QUEUES.events.visibilityTimeoutSeconds),
      'Events to webhooks, automation rules, agent bots',
      {
        TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
        // Mail requests (outbox items) are rendered here and queued for the mail function.
        MAIL_QUEUE_URL: this.mailQueue.queueUrl,
        FRONTEND_URL: props.frontendUrl ?? props.publicBaseUrl,
        // The purge of deleted accounts and inboxes (shared/domain/purge) runs here and removes their files.
        AVATAR_BUCKET: props.files.bucketName,
        // A channel inbox's outgoing messages are queued here for the channel-send function.
        CHANNEL_SEND_QUEUE_URL: this.channelSendQueue.queueUrl,
      },
    );
    this.mailQueue.grantSendMessages(this.dispatchFunction);
    this.channelSendQueue.grantSendMessages(this.dispatchFunction);
    // Delete only: the purge lists an account's prefixes and deletes what it finds (it never reads a file).
    this.dispatchFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: [props.files.arnForObjects('*')] }),
    );
    this.dispatchFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.files.bucketArn] }));
    // The contacts export (a mail request, shared/domain/contacts/export.ts) stores its CSV under exports/.
    this.dispatchFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [props.files.arnForObjects('exports/*')] }),
    );
    // The contacts import (shared/domain/contacts/import.ts) reads the uploaded CSV and writes the failed records under imports/.
    this.dispatchFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [props.files.arnForObjects('imports/*')] }),
    );
    const filesId = Stack.of(this).resolve((props.files.node.defaultChild as s3.CfnBucket).logicalId);
    acknowledge(this.dispatchFunction, {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/exports/*]`]:
        'The contacts export writes its CSV files, each named by its request, under the one exports/ prefix of the files bucket',
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/imports/*]`]:
        'The contacts import reads the CSV files its requests stored and writes their failed records, each named by its import, under the one imports/ prefix of the files bucket',
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/*]`]:
        "The purge deletes a deleted account's files under its own prefixes (attachments/<id>/, avatars/…/<id>/): the grant covers the objects of the one files bucket",
    });
    grantTableData(props.table, this.dispatchFunction, 'write');
    props.tokenKey.grantRead(this.dispatchFunction);
    this.deliveriesQueue.grantSendMessages(this.dispatchFunction);
    this.dispatchFunction.addEventSource(
      new SqsEventSource(this.eventsQueue, {
        batchSize: QUEUE_SOURCES.dispatch.batchSize,
        reportBatchItemFailures: QUEUE_SOURCES.dispatch.reportBatchItemFailures,
        maxConcurrency: QUEUE_SOURCES.dispatch.maxConcurrency,
      }),
    );

    // SLA deadlines (docs/sla.md#deadlines-on-time): the dispatcher creates one EventBridge Scheduler one-time schedule
    // per deadline in the group; Scheduler invokes the wake-up function with the schedule's role. Wake-up role: table
    // reads and writes (the applied SLA, notifications), the token key (payloads' signed links).
    // Scheduler invokes asynchronously: an invocation that keeps failing goes to this dead-letter queue (alarmed).
    this.slaWakeupDlq = new sqs.Queue(this, 'SlaWakeupDlq', { ...queueDefaults, retentionPeriod: RETENTION });
    acknowledge(this.slaWakeupDlq, {
      'Serverless::Serverless-SQSRedrivePolicy': 'A dead-letter queue: it has no dead-letter queue of its own',
    });
    this.slaWakeupFunction = fn(
      'slaWakeup',
      Duration.seconds(60),
      'SLA deadlines evaluated on time (one-time schedules)',
      { TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn },
      this.slaWakeupDlq,
    );
    grantTableData(props.table, this.slaWakeupFunction, 'write');
    props.tokenKey.grantRead(this.slaWakeupFunction);
    this.slaScheduleGroup = new scheduler.CfnScheduleGroup(this, 'SlaSchedules', {});
    this.slaSchedulerRole = new iam.Role(this, 'SlaSchedulerRole', {
      description: 'EventBridge Scheduler invokes the SLA wake-up function',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    this.slaSchedulerRole.addToPolicy(
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.slaWakeupFunction.functionArn] }),
    );
    this.dispatchFunction.addEnvironment('SLA_SCHEDULE_GROUP', this.slaScheduleGroup.ref);
    this.dispatchFunction.addEnvironment('SLA_WAKEUP_FUNCTION_ARN', this.slaWakeupFunction.functionArn);
    this.dispatchFunction.addEnvironment('SLA_WAKEUP_ROLE_ARN', this.slaSchedulerRole.roleArn);
    const schedules = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.slaScheduleGroup.ref}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    this.dispatchFunction.addToRolePolicy(new iam.PolicyStatement({ actions: ['scheduler:CreateSchedule'], resources: [schedules] }));
    const groupId = Stack.of(this).resolve(this.slaScheduleGroup.logicalId);
    acknowledge(this.dispatchFunction, {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/<${groupId}>/*]`]:
        'The dispatcher names each SLA wake-up schedule itself (conversation and instant): the grant covers the schedules of the one SLA group',
    });
    this.dispatchFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['iam:PassRole'], resources: [this.slaSchedulerRole.roleArn] }),
    );

    // Deliveries queue → receivers. Role: consume deliveries (incl. changing visibility for backoff), move
    // exhausted or refused ones to the dead-letter queue itself, read account items.
    this.deliverFunction = fn('deliver', consumerTimeout(QUEUES.deliveries.visibilityTimeoutSeconds), 'Deliveries to webhook receivers', {
      DELIVERIES_DLQ_URL: this.deliveriesDlq.queueUrl,
      // Deliveries name their receiver; the signing secret is read from the table and unsealed here.
      TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
    });
    props.tokenKey.grantRead(this.deliverFunction);
    this.deliveriesDlq.grantSendMessages(this.deliverFunction);
    // Reads the account of a delivery (a suspended account's deliveries are dropped), and marks a message
    // failed when an API-inbox callback refuses it (Chatwoot's webhook trigger does): table reads and writes.
    grantTableData(props.table, this.deliverFunction, 'write');
    this.deliverFunction.addEventSource(
      new SqsEventSource(this.deliveriesQueue, {
        batchSize: QUEUE_SOURCES.deliver.batchSize,
        reportBatchItemFailures: QUEUE_SOURCES.deliver.reportBatchItemFailures,
        maxConcurrency: props.deliverMaxConcurrency ?? 50,
      }),
    );

    // Mail queue → Amazon SES. Role: consume the mail queue and SendEmail from the sender address only (on
    // the address's and its domain's identities, whichever is verified). No table; the token key, because
    // mails carrying a reset link travel sealed and are opened here.
    const sender = props.mailerSenderEmail;
    this.mailFunction = fn('mail', consumerTimeout(QUEUES.mail.visibilityTimeoutSeconds), 'Mail to recipients through Amazon SES', {
      MAIL_TRANSPORT: sender ? 'ses' : 'none',
      ...(sender ? { MAILER_SENDER_EMAIL: sender } : {}),
      TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
    });
    props.tokenKey.grantRead(this.mailFunction);
    // SendEmail from the sender address only (its own and its domain's identities, whichever is verified).
    const sendFromSender = (f: lambda.Function) => {
      if (!sender) return;
      const address = addressOf(sender);
      const domain = address.split('@')[1] ?? address;
      const stack = Stack.of(this);
      f.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['ses:SendEmail'],
          resources: [address, domain].map((identity) =>
            stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }),
          ),
          conditions: { StringEquals: { 'ses:FromAddress': address } },
        }),
      );
    };
    sendFromSender(this.mailFunction);
    this.mailFunction.addEventSource(
      new SqsEventSource(this.mailQueue, {
        batchSize: QUEUE_SOURCES.mail.batchSize,
        reportBatchItemFailures: QUEUE_SOURCES.mail.reportBatchItemFailures,
        maxConcurrency: QUEUE_SOURCES.mail.maxConcurrency,
      }),
    );

    // Channel-inbound queue → contacts, conversations, messages and statuses. Role: table read/write, the token key
    // (an inbox's provider credentials are sealed), consume the queue, and put the media it downloads in the files
    // bucket (only there: attachments/).
    const channels = channelEnvironment(props.channels);
    this.channelInboundFunction = fn(
      'channelInbound',
      consumerTimeout(QUEUES.channelInbound.visibilityTimeoutSeconds),
      'Provider webhooks to contacts, conversations and messages',
      {
        TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
        AVATAR_BUCKET: props.files.bucketName,
        // A status for a message not known yet is looked at again soon (by visibility: the consume grant covers it).
        CHANNEL_INBOUND_QUEUE_URL: this.channelInboundQueue.queueUrl,
        ...channels,
      },
    );
    grantTableData(props.table, this.channelInboundFunction, 'write');
    props.tokenKey.grantRead(this.channelInboundFunction);
    this.channelInboundFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [props.files.arnForObjects('attachments/*')] }),
    );
    // Incoming mail too large for a queue message was stored under mail/inbound/ by its way in (docs/mail.md), a
    // provider webhook's body under channel/inbound/ by the ingest (docs/channels.md).
    this.channelInboundFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [props.files.arnForObjects('mail/inbound/*'), props.files.arnForObjects('channel/inbound/*')],
      }),
    );
    acknowledge(this.channelInboundFunction, {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/attachments/*]`]:
        'Media downloaded from a provider are stored under attachments/<account>/<message>/: the grant covers that prefix of the one files bucket',
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/mail/inbound/*]`]:
        'Raw incoming mails are stored under mail/inbound/<account>/<inbox>/<hash>.eml: the grant covers that prefix',
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/channel/inbound/*]`]:
        'Provider webhook bodies too large for a queue message are stored under channel/inbound/<hash>.txt: the grant covers that prefix',
    });
    this.channelInboundFunction.addEventSource(
      new SqsEventSource(this.channelInboundQueue, {
        batchSize: QUEUE_SOURCES.channelInbound.batchSize,
        reportBatchItemFailures: QUEUE_SOURCES.channelInbound.reportBatchItemFailures,
        maxConcurrency: QUEUE_SOURCES.channelInbound.maxConcurrency,
      }),
    );

    // Channel-send queue → the providers' APIs. Role: table read/write (the claim, the outcome), the token key (the
    // credentials, file links), consume the queue (incl. changing visibility for backoff).
    this.channelSendFunction = fn(
      'channelSend',
      consumerTimeout(QUEUES.channelSend.visibilityTimeoutSeconds),
      'Outgoing channel messages to the providers',
      {
        TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
        CHANNEL_SEND_QUEUE_URL: this.channelSendQueue.queueUrl,
        FRONTEND_URL: props.frontendUrl ?? props.publicBaseUrl,
        // Email inboxes' replies: through SES from the sender (an inbox's own SMTP otherwise), files attached.
        MAIL_TRANSPORT: sender ? 'ses' : 'none',
        ...(sender ? { MAILER_SENDER_EMAIL: sender } : {}),
        AVATAR_BUCKET: props.files.bucketName,
        ...channels,
      },
    );
    grantTableData(props.table, this.channelSendFunction, 'write');
    props.tokenKey.grantRead(this.channelSendFunction);
    sendFromSender(this.channelSendFunction);
    // A reply's files up to 20 MB are attached to its mail: read from attachments/ only.
    this.channelSendFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [props.files.arnForObjects('attachments/*')] }),
    );
    acknowledge(this.channelSendFunction, {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/attachments/*]`]:
        "A mailed reply attaches its message's files, stored under attachments/<account>/<message>/",
    });
    this.channelSendFunction.addEventSource(
      new SqsEventSource(this.channelSendQueue, {
        batchSize: QUEUE_SOURCES.channelSend.batchSize,
        reportBatchItemFailures: QUEUE_SOURCES.channelSend.reportBatchItemFailures,
        maxConcurrency: QUEUE_SOURCES.channelSend.maxConcurrency,
      }),
    );

    for (const [alarmId, queue, what] of [
      ['ChannelInboundDlqAlarm', this.channelInboundDlq, 'provider webhooks that could not be processed'],
      ['ChannelSendDlqAlarm', this.channelSendDlq, 'outgoing channel messages whose send kept crashing'],
      ['EventsDlqAlarm', this.eventsDlq, 'events the dispatcher could not process'],
      ['DeliveriesDlqAlarm', this.deliveriesDlq, 'webhook deliveries that exhausted their retries'],
      [
        'StreamFailuresAlarm',
        this.streamFailures,
        'stream records that could not be forwarded, one per object in the failure bucket (replay with npm run replay -- stream-failures)',
      ],
      ['MailDlqAlarm', this.mailDlq, 'mails that could not be sent'],
      [
        'SlaWakeupDlqAlarm',
        this.slaWakeupDlq,
        'SLA deadline wake-ups that kept failing (their events name the conversation and the instant)',
      ],
    ] as const) {
      this.alarms.push(
        queue
          .metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period: Duration.minutes(5) })
          .createAlarm(this, alarmId, {
            alarmDescription: `Dead-letter queue holds ${what}`,
            threshold: 0,
            comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluationPeriods: 1,
            treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
          }),
      );
    }
  }
}
