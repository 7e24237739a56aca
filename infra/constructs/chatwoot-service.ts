import { type CfnResource, CfnOutput, Duration, FeatureFlags, Fn, RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as targets from 'aws-cdk-lib/aws-route53-targets';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { bundlesIn, PACKAGED_BUNDLES_DIR, type FunctionBundles } from '../bundles.ts';
import { functionName, routes as routeTable, type Route } from '../routes.ts';
import { EmailIngress } from './email-ingress.ts';
import { channelEnvironment, EventPipeline, type ChannelSettings } from './event-pipeline.ts';

/** The functions that set a channel inbox up at its provider (docs/channels.md#configuration). */
const INBOX_SETUP_HANDLERS = new Set([
  'functions/api/inboxes/create.ts',
  'functions/api/inboxes/update.ts',
  'functions/api/callbacks/register-facebook-page.ts',
  'functions/api/callbacks/facebook-pages.ts',
  'functions/api/callbacks/reauthorize-page.ts',
  'functions/api/instagram/authorization.ts',
  'functions/channels/instagram-callback.ts',
]);
import { acknowledge, LAMBDA_ROLE_ACKNOWLEDGMENTS } from './grants.ts';
import { HttpApiRoutes, type CaptainModel, type RequestLimits } from './http-api.ts';
import type { FunctionSettings } from './logs.ts';
import { Observability } from './observability.ts';
import { ServiceTable } from './table.ts';
import { WebSocketApi } from './websocket-api.ts';
import { FargateCable } from './fargate-cable.ts';
import { CABLE_SERVER } from '../cable.ts';

const S3_LOGS_USE_BUCKET_POLICY = '@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

export interface CustomDomainProps {
  /** e.g. `chat.example.com`; links the service hands out (widget script, avatars) use it. */
  domainName: string;
  /** An ACM certificate for `domainName` in the stack's region. */
  certificate: acm.ICertificate;
  /** When given, an alias record for `domainName` is created in this zone; otherwise point DNS at the `ApiDomainTarget` output. */
  hostedZone?: route53.IHostedZone;
}

export interface ChatwootServiceProps {
  /** Serve the API on this domain instead of the execute-api host. @default none */
  domain?: CustomDomainProps;
  /**
   * Base URL in links the service hands out, when something else fronts it (e.g. a CloudFront
   * distribution). @default `https://<domain>` with a domain, else the API's execute-api URL
   */
  publicBaseUrl?: string;
  /**
   * Every alarm notifies this topic (ALARM and OK). @default a topic of the service's own (outputs `AlarmTopicArn` and
   * `AlarmSubscribeCommand`), subscribed by `alarmEmail` when set: alarms never go without an action
   */
  alarmTopic?: sns.ITopic;
  /** Subscribes this address to the service's own topic (the address must confirm the subscription). */
  alarmEmail?: string;
  /** Retention of function and access logs. @default one month */
  logRetention?: logs.RetentionDays;
  /**
   * What `cdk destroy` (or a replacement) does to the customer data: the table, the token key secret and
   * the avatar bucket. @default RETAIN
   */
  removalPolicy?: RemovalPolicy;
  /** DynamoDB deletion protection on the table. @default true, unless removalPolicy is DESTROY */
  tableDeletionProtection?: boolean;
  /**
   * Keep the slim activity index `gsi3` for the one deployment that upgrades a stack made before `gsi3w`
   * (docs/deploy.md#upgrading-to-whole-copies-in-gsi3w). @default false
   */
  slimActivityIndex?: boolean;
  /** Lambda runtime of every function: nodejs22.x or nodejs24.x. @default lambda.Runtime.NODEJS_22_X */
  runtime?: lambda.Runtime;
  /** Memory of every function, in MB. @default 512 */
  memorySize?: number;
  /** Default route throttling of the API (the service's ceiling). @default 1000 requests/s, bursts of 2000 */
  throttle?: { rateLimit: number; burstLimit: number };
  /** Request limits per account and per credential (docs/api.md#request-limits). @default the configuration's defaults */
  limits?: RequestLimits;
  /**
   * The OpenAI-compatible model Captain's editor tasks call (Chatwoot's CAPTAIN_OPEN_AI_ENDPOINT), with each
   * account's OpenAI integration key. @default OpenAI's API and gpt-4o-mini
   */
  captain?: CaptainModel;
  /** Origins browsers may call the API from. @default ['*'] (the widget runs on customers' sites) */
  corsOrigins?: string[];
  /** Tags on every resource (cost allocation). @default none */
  tags?: Record<string, string>;
  /** @default 'INFO' */
  logLevel?: LogLevel;
  /** JSON access logs of the API. @default true */
  accessLogs?: boolean;
  /** X-Ray active tracing of every function. @default true */
  tracing?: boolean;
  /** Concurrency cap of the webhook deliver function. @default 50 */
  deliverMaxConcurrency?: number;
  /**
   * Sender of the service's mail (password reset, conversation transcripts), `Name <address>` or an address,
   * as Chatwoot's MAILER_SENDER_EMAIL: an Amazon SES identity verified in the stack's region (the address or
   * its domain). The mail function may send from this address only. @default none: no mail is sent
   */
  mailerSenderEmail?: string;
  /** Chatwoot's FRONTEND_URL: the dashboard's address in mailed links. @default the service's URL */
  frontendUrl?: string;
  /**
   * Incoming mail (docs/mail.md#incoming-mail). `domain` is Chatwoot's MAILER_INBOUND_EMAIL_DOMAIN: email inboxes'
   * forwarding addresses and replies' `reply+<uuid>` addresses are on it, and SES receives for it (verify it in SES,
   * point its MX at SES, activate the rule set: docs/mail.md#ses-receiving-deployed). `relay` opens the ActionMailbox
   * relay route: its password (Chatwoot's RAILS_INBOUND_EMAIL_PASSWORD) is a Secrets Manager secret, `true` one the
   * stack generates (the MailRelayPasswordSecret output names it), or a secret of yours whose text is the password.
   * IMAP inboxes are polled every `imapPollInterval`.
   * @default no inbound domain (no forwarding addresses, no SES receiving), no relay, IMAP every minute
   */
  inboundEmail?: { domain?: string; relay?: true | secretsmanager.ISecret; imapPollInterval?: Duration };
  /**
   * Messaging channels (docs/channels.md#configuration): the providers' hosts (the real ones by default; staging
   * points them at fakes), a send's first retry delay, and the Meta app secret that signs WhatsApp Cloud webhooks
   * (checked when given; Chatwoot checks none).
   */
  channels?: ChannelSettings;
  /**
   * How `/cable` is served: `'fargate'`, a socket server on Fargate behind a Network Load Balancer and
   * CloudFront (the cheapest at 100, 1,000 and 10,000 idle connections: docs/realtime.md#cost-of-idle-connections),
   * or `'websocket-api'`, an API Gateway WebSocket API with socket functions and a pinger. @default 'fargate'
   */
  cableTransport?: 'fargate' | 'websocket-api';
  /** Fargate socket server tasks. @default 2 */
  cableTasks?: number;
  /** Socket pinger shards (cableTransport 'websocket-api'; one per ~1,500 connections). @default 1 */
  cablePingerShards?: number;
  /** p99 latency of the API above which it alarms. @default 3 s */
  latencyAlarmP99?: Duration;
  /** Prebuilt function bundles. @default the bundles shipped with the package */
  bundles?: FunctionBundles;
  /** @default THE route table; tests pass synthetic tables. */
  routes?: Route[];
}

/**
 * The whole service, ready to put in any stack: table, token key, avatar bucket, the HTTP API with one
 * function per route, the event pipeline, alarms and a dashboard.
 *
 *   new ChatwootService(stack, 'Chat', { alarmEmail: 'ops@example.com', tags: { app: 'support' } });
 */
export class ChatwootService extends Construct {
  readonly table: ServiceTable;
  readonly api: HttpApiRoutes;
  readonly pipeline: EventPipeline;
  readonly emailIngress: EmailIngress;
  /** The ActionMailbox relay route's password (with `inboundEmail.relay`). */
  readonly relayPassword?: secretsmanager.ISecret;
  readonly observability: Observability;
  /** Chatwoot's `/cable` over an API Gateway WebSocket API (cableTransport 'websocket-api'). */
  readonly cable?: WebSocketApi;
  /** Chatwoot's `/cable` on Fargate (cableTransport 'fargate', the default). */
  readonly fargateCable?: FargateCable;
  /** `wss://…/cable`: what clients are told. */
  readonly cableUrl: string;
  readonly tokenKey: secretsmanager.Secret;
  readonly avatars: s3.Bucket;
  /** Where every alarm notifies: `alarmTopic`, or the service's own topic. */
  readonly alarmTopic: sns.ITopic;
  readonly domainName?: apigw.DomainName;
  /** Base URL of the service, as in the links it hands out (no trailing slash). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ChatwootServiceProps = {}) {
    super(scope, id);
    const bundles = props.bundles ?? bundlesIn(PACKAGED_BUNDLES_DIR);
    if (Object.keys(bundles).length === 0) {
      throw new Error(
        `No function bundles in ${PACKAGED_BUNDLES_DIR}: pass props.bundles (infra/build.ts buildFunctions) or use the built package`,
      );
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const functions: FunctionSettings = {
      runtime: props.runtime ?? lambda.Runtime.NODEJS_22_X,
      memorySize: props.memorySize ?? 512,
      logRetention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      tracing: props.tracing ?? true,
      logLevel: props.logLevel ?? 'INFO',
    };
    for (const [key, value] of Object.entries(props.tags ?? {})) Tags.of(this).add(key, value);

    this.table = new ServiceTable(this, 'Data', {
      removalPolicy,
      deletionProtection: props.tableDeletionProtection ?? removalPolicy !== RemovalPolicy.DESTROY,
      slimActivityIndex: props.slimActivityIndex,
    });
    // Losing this key makes every sealed token copy unreadable: by default it outlives the stack.
    this.tokenKey = new secretsmanager.Secret(this, 'TokenKey', {
      description: 'Key material for the encrypted copies of access tokens',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    acknowledge(this.tokenKey, {
      'AwsSolutions::AwsSolutions-SMG4':
        'Rotating the key would make every sealed token copy unreadable; it is random, never leaves Secrets Manager but to the functions that seal',
    });
    const bucketDefaults = {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
    };
    // Server access logs of the avatar bucket, kept as long as the other logs.
    const accessLogs = new s3.Bucket(this, 'AvatarAccessLogs', {
      ...bucketDefaults,
      // Apps without the bucket-policy flag grant log delivery by ACL, which needs object-writer ownership.
      objectOwnership: FeatureFlags.of(this).isEnabled(S3_LOGS_USE_BUCKET_POLICY)
        ? s3.ObjectOwnership.BUCKET_OWNER_ENFORCED
        : s3.ObjectOwnership.OBJECT_WRITER,
      lifecycleRules: [{ expiration: Duration.days(props.logRetention ?? logs.RetentionDays.ONE_MONTH) }],
    });
    acknowledge(accessLogs, {
      'AwsSolutions::AwsSolutions-S1': 'The access log bucket of the avatar bucket: logging it would log its own writes',
    });
    this.avatars = new s3.Bucket(this, 'Avatars', {
      ...bucketDefaults,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'avatars/',
      // Raw incoming mails too large for a queue message are needed only until the pipeline has read them.
      // So are provider webhook bodies too large for one (shared/channels/ingest.ts).
      lifecycleRules: [
        { prefix: 'mail/inbound/', expiration: Duration.days(7) },
        { prefix: 'channel/inbound/', expiration: Duration.days(7) },
        // Contacts exports: their mailed link lasts a day (shared/domain/contacts/export.ts).
        { prefix: 'exports/', expiration: Duration.days(2) },
        // Contacts imports: the uploaded CSV is read within minutes; the failed records' mailed link lasts a day
        // (shared/domain/contacts/import.ts).
        { prefix: 'imports/', expiration: Duration.days(2) },
      ],
    });

    const domain = props.domain;
    this.api = new HttpApiRoutes(this, 'Http', {
      routes: props.routes ?? routeTable,
      bundles,
      table: this.table.table,
      tokenKey: this.tokenKey,
      avatars: this.avatars,
      functions,
      accessLogs: props.accessLogs,
      throttle: props.throttle,
      limits: props.limits,
      captain: props.captain,
      corsOrigins: props.corsOrigins,
      publicBaseUrl: (props.publicBaseUrl ?? (domain ? `https://${domain.domainName}` : undefined))?.replace(/\/$/, ''),
    });
    this.url = this.api.url;
    if (domain) {
      this.domainName = new apigw.DomainName(this, 'Domain', { domainName: domain.domainName, certificate: domain.certificate });
      new apigw.ApiMapping(this, 'DomainMapping', { api: this.api.api, domainName: this.domainName, stage: this.api.stage });
      if (domain.hostedZone) {
        new route53.ARecord(this, 'DomainRecord', {
          zone: domain.hostedZone,
          recordName: domain.domainName,
          target: route53.RecordTarget.fromAlias(
            new targets.ApiGatewayv2DomainProperties(this.domainName.regionalDomainName, this.domainName.regionalHostedZoneId),
          ),
        });
      }
    }

    this.pipeline = new EventPipeline(this, 'Events', {
      table: this.table.table,
      files: this.avatars,
      bundles,
      publicBaseUrl: this.url,
      functions,
      tokenKey: this.tokenKey,
      deliverMaxConcurrency: props.deliverMaxConcurrency,
      mailerSenderEmail: props.mailerSenderEmail,
      frontendUrl: props.frontendUrl?.replace(/\/$/, ''),
      accessLogs,
      removalPolicy,
      channels: props.channels,
    });

    // Provider webhooks (access class `channels`): told the channel-inbound queue, the public URL providers sign
    // (Twilio) and the Meta app secret; sending to that queue is the whole queue grant.
    this.pipeline.channelInboundQueue.grantSendMessages(this.api.roles.channels);
    for (const route of props.routes ?? routeTable) {
      if (route.access !== 'channels') continue;
      const fn = this.api.functions.get(functionName(route));
      if (!fn) continue;
      fn.addEnvironment('CHANNEL_INBOUND_QUEUE_URL', this.pipeline.channelInboundQueue.queueUrl);
      fn.addEnvironment('FRONTEND_URL', props.frontendUrl?.replace(/\/$/, '') ?? this.url);
      for (const [k, v] of Object.entries(channelEnvironment(props.channels))) fn.addEnvironment(k, v);
    }
    // Creating or changing a channel inbox calls its provider (Telegram's getMe and setWebhook): the same hosts.
    for (const route of props.routes ?? routeTable) {
      if (!INBOX_SETUP_HANDLERS.has(route.handler)) continue;
      const fn = this.api.functions.get(functionName(route));
      if (!fn) continue;
      for (const [k, v] of Object.entries(channelEnvironment(props.channels))) fn.addEnvironment(k, v);
      // The URLs they hand the provider (Telegram's webhook, Instagram's OAuth redirect) are under FRONTEND_URL.
      fn.addEnvironment('FRONTEND_URL', props.frontendUrl?.replace(/\/$/, '') ?? this.url);
    }

    // Incoming mail: the relay route keeps large raw mails in the files bucket (mail/inbound/) and needs the relay
    // password; SES receiving and the IMAP poll are their own functions. Every provider route keeps webhook bodies
    // too large for a queue message there too (channel/inbound/).
    const inbound = props.inboundEmail;
    this.api.roles.channels.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.avatars.arnForObjects('mail/inbound/*'), this.avatars.arnForObjects('channel/inbound/*')],
      }),
    );
    const filesId = Stack.of(this).resolve((this.avatars.node.defaultChild as s3.CfnBucket).logicalId);
    acknowledge(this.api.roles.channels, {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/mail/inbound/*]`]:
        'Raw mails the relay route takes are stored under their hash in the mail prefix of the files bucket',
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/channel/inbound/*]`]:
        'Provider webhook bodies too large for a queue message are stored under their hash in the channel prefix of the files bucket',
    });
    const relay = this.api.functions.get('channels-email-relay');
    if (relay && inbound?.relay) {
      // The password never enters the template or the environment: the route reads the secret (cached 5 minutes).
      const secret =
        inbound.relay === true
          ? new secretsmanager.Secret(this, 'MailRelayPassword', {
              description: 'Password of the ActionMailbox relay route (user actionmailbox), Chatwoot RAILS_INBOUND_EMAIL_PASSWORD',
              generateSecretString: { passwordLength: 32, excludePunctuation: true },
              removalPolicy,
            })
          : inbound.relay;
      if (secret instanceof secretsmanager.Secret) {
        acknowledge(secret, {
          'AwsSolutions::AwsSolutions-SMG4':
            'The mail relay (Postfix, Exim, a relay service) holds the same password: a rotation is a change on both sides, made by hand',
        });
      }
      relay.addEnvironment('RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN', secret.secretArn);
      secret.grantRead(relay);
      this.relayPassword = secret;
      new CfnOutput(this, 'MailRelayPasswordSecret', {
        value: secret.secretArn,
        description: 'The relay password (user actionmailbox): aws secretsmanager get-secret-value --secret-id <this>',
      });
    }
    this.emailIngress = new EmailIngress(this, 'Mail', {
      table: this.table.table,
      bundles,
      functions,
      tokenKey: this.tokenKey,
      files: this.avatars,
      inboundQueue: this.pipeline.channelInboundQueue,
      inboundEmailDomain: inbound?.domain,
      imapPollInterval: inbound?.imapPollInterval,
      environment: { TABLE_NAME: this.table.table.tableName, PUBLIC_BASE_URL: this.url, LOG_LEVEL: functions.logLevel },
      accessLogs,
      removalPolicy,
    });
    // The mail ingress's dead-letter alarm goes with the pipeline's: the alarm topic's actions, the dashboard.
    this.pipeline.alarms.push(...this.emailIngress.alarms);
    if (this.emailIngress.ruleSet) new CfnOutput(this, 'MailRuleSetName', { value: this.emailIngress.ruleSet.receiptRuleSetName });

    // `GET /api` and `GET /health` report whether the queues answer: they alone are told their URLs; reading
    // their attributes is the whole grant (on the shared read role both run as, which holds nothing else of
    // the queues).
    const probes = ['system-api', 'system-health'].flatMap((name) => this.api.functions.get(name) ?? []);
    for (const fn of probes) {
      fn.addEnvironment('EVENTS_QUEUE_URL', this.pipeline.eventsQueue.queueUrl);
      fn.addEnvironment('DELIVERIES_QUEUE_URL', this.pipeline.deliveriesQueue.queueUrl);
    }
    if (probes[0]) for (const q of [this.pipeline.eventsQueue, this.pipeline.deliveriesQueue]) q.grant(probes[0], 'sqs:GetQueueAttributes');

    // Chatwoot's /cable: the dispatcher broadcasts through it; the widget config tells clients its URL.
    if ((props.cableTransport ?? 'fargate') === 'fargate') {
      const bundle = bundles[CABLE_SERVER.name];
      if (!bundle) throw new Error(`No bundle for ${CABLE_SERVER.name}: run buildFunctions() first`);
      this.fargateCable = new FargateCable(this, 'CableServer', {
        table: this.table.table,
        tokenKey: this.tokenKey,
        bundle,
        queuePrefix: `${Stack.of(this).stackName.slice(0, 40)}-`,
        logLevel: functions.logLevel,
        logRetention: functions.logRetention,
        desiredCount: props.cableTasks,
        removalPolicy,
      });
      this.fargateCable.allowBroadcast(this.pipeline.dispatchFunction);
      this.cableUrl = this.fargateCable.url;
    } else {
      this.cable = new WebSocketApi(this, 'Cable', {
        table: this.table.table,
        bundles,
        logLevel: functions.logLevel,
        functions,
        pingerShards: props.cablePingerShards,
      });
      this.cable.allowBroadcast(this.pipeline.dispatchFunction);
      this.cableUrl = this.cable.url;
    }
    this.api.functions.get('widget-config')?.addEnvironment('CABLE_URL', this.cableUrl);

    // The `service` of every log line and the dimension of the custom metrics the dashboard graphs; the inbound mail
    // domain wherever inboxes are shown or mail is routed and replied to.
    for (const fn of this.allFunctions()) {
      fn.addEnvironment('SERVICE_NAME', Stack.of(this).stackName);
      if (inbound?.domain) fn.addEnvironment('MAILER_INBOUND_EMAIL_DOMAIN', inbound.domain);
    }

    this.acknowledgeByDesign(functions.runtime);

    // Alarms always act: without a topic of the deployer's, the service makes its own (the `AlarmSubscribeCommand`
    // output subscribes someone later), so an outage is never learned of from customers alone.
    this.alarmTopic = props.alarmTopic ?? this.ownAlarmTopic(props.alarmEmail);
    this.observability = new Observability(this, 'Observability', {
      http: this.api,
      pipeline: this.pipeline,
      topic: this.alarmTopic,
      latencyP99: props.latencyAlarmP99,
      serviceName: Stack.of(this).stackName,
    });

    new CfnOutput(this, 'CableUrl', { value: this.cableUrl, description: 'WebSocket URL of /cable (ActionCable)' });
    new CfnOutput(this, 'ApiUrl', { value: this.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName });
    if (this.domainName && !domain?.hostedZone) {
      new CfnOutput(this, 'ApiDomainTarget', {
        value: this.domainName.regionalDomainName,
        description: `CNAME target for ${domain!.domainName}`,
      });
    }
    new CfnOutput(this, 'DashboardUrl', {
      value: Fn.join('', [
        'https://console.aws.amazon.com/cloudwatch/home?region=',
        Stack.of(this).region,
        '#dashboards:name=',
        this.observability.dashboard.dashboardName,
      ]),
    });
    new CfnOutput(this, 'ReplayStreamFailuresCommand', {
      description:
        'Forwards again the stream records the failure queue announces (objects in the failure bucket, with the records themselves)',
      value: Fn.join('', [
        'npm run replay -- stream-failures --queue-url ',
        this.pipeline.streamFailures.queueUrl,
        ' --events-queue-url ',
        this.pipeline.eventsQueue.queueUrl,
        ' --region ',
        Stack.of(this).region,
      ]),
    });
    new CfnOutput(this, 'ReplayDeliveriesCommand', {
      description: 'Sends the dead-lettered deliveries again with their ids (add --since TIME, --account ID, --webhook ID)',
      value: Fn.join('', [
        'npm run replay -- deliveries --queue-url ',
        this.pipeline.deliveriesDlq.queueUrl,
        ' --deliveries-queue-url ',
        this.pipeline.deliveriesQueue.queueUrl,
        ' --region ',
        Stack.of(this).region,
      ]),
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarmTopic.topicArn, description: 'SNS topic every alarm notifies (ALARM and OK)' });
    new CfnOutput(this, 'AlarmSubscribeCommand', {
      description: 'Subscribes an address to the alarms (it must confirm the email AWS sends); any SNS protocol works',
      value: Fn.join('', [
        'aws sns subscribe --protocol email --notification-endpoint <address> --topic-arn ',
        this.alarmTopic.topicArn,
        ' --region ',
        Stack.of(this).region,
      ]),
    });
    new CfnOutput(this, 'PlatformAppCommand', {
      description: 'Creates a platform app and prints its token once (the first platform token)',
      value: Fn.join('', [
        'npm run platform-app -- create --name <name> --table ',
        this.table.table.tableName,
        ' --region ',
        Stack.of(this).region,
      ]),
    });
  }

  /** Every function of the service: route functions, the pipeline's and the socket's. */
  allFunctions(): lambda.Function[] {
    return [
      ...this.api.functions.values(),
      this.pipeline.streamFunction,
      this.pipeline.dispatchFunction,
      this.pipeline.deliverFunction,
      this.pipeline.mailFunction,
      this.pipeline.channelInboundFunction,
      this.pipeline.channelSendFunction,
      this.pipeline.slaWakeupFunction,
      ...this.emailIngress.functions,
      ...Object.values(this.cable?.functions ?? {}),
    ];
  }

  /** cdk-nag findings that are the design, not a defect; each with its reason (`npm test` runs both packs). */
  private acknowledgeByDesign(runtime: lambda.Runtime): void {
    acknowledge(this.api, {
      'AwsSolutions::AwsSolutions-APIG4':
        "Chatwoot's own credentials (api_access_token, platform tokens, public inbox identifiers) are checked by each function; API Gateway authorizers cannot read them",
    });
    for (const fn of this.allFunctions()) {
      // SES, the IMAP schedule and the SLA wake-ups' schedules invoke theirs asynchronously: those have a dead-letter queue.
      if (!this.emailIngress.functions.includes(fn) && fn !== this.pipeline.slaWakeupFunction)
        acknowledge(fn, {
          'Serverless::Serverless-LambdaDLQ':
            "Nothing invokes the functions asynchronously: API Gateway invokes synchronously, and the event source mappings take failures to the queues' dead-letter queues and the stream's failure queue",
        });
      if (runtime.name === 'nodejs22.x') {
        const reason =
          'nodejs22.x is the runtime the code is built for and tested on (npm test runs on Node 22); nodejs24.x is the runtime prop';
        acknowledge(fn, { 'AwsSolutions::AwsSolutions-L1': reason, 'Serverless::Serverless-LambdaLatestVersion': reason });
      }
    }
    for (const fn of [
      this.pipeline.streamFunction,
      this.pipeline.dispatchFunction,
      this.pipeline.deliverFunction,
      this.pipeline.mailFunction,
      this.pipeline.channelInboundFunction,
      this.pipeline.channelSendFunction,
      this.pipeline.slaWakeupFunction,
      ...this.emailIngress.functions,
      ...Object.values(this.cable?.functions ?? {}),
    ]) {
      acknowledge(fn, LAMBDA_ROLE_ACKNOWLEDGMENTS);
    }
    if (this.fargateCable) this.acknowledgeFargate(this.fargateCable);
    if (this.cable) this.acknowledgeWebSocketApi(this.cable);
    for (const fn of [
      this.pipeline.dispatchFunction,
      this.pipeline.deliverFunction,
      this.pipeline.mailFunction,
      this.pipeline.channelInboundFunction,
      this.pipeline.channelSendFunction,
    ]) {
      acknowledge(fn, {
        'Serverless::Serverless-LambdaEventSourceMappingDestination':
          "SQS event sources have no on-failure destination: failures go to the queue's redrive dead-letter queue",
      });
    }
    for (const queue of [
      this.pipeline.eventsDlq,
      this.pipeline.deliveriesDlq,
      this.pipeline.mailDlq,
      this.pipeline.channelInboundDlq,
      this.pipeline.channelSendDlq,
      this.pipeline.streamFailures,
    ]) {
      acknowledge(queue, {
        'Serverless::Serverless-SQSRedrivePolicy': 'A dead-letter queue (with an alarm): it has no dead-letter queue of its own',
      });
    }
    acknowledge(this.pipeline.streamFailures, {
      'AwsSolutions::AwsSolutions-SQS3': "The stream event source's on-failure destination, which is a dead-letter queue by another name",
    });
  }

  /** The service's own alarm topic, subscribed by `email` when given. */
  private ownAlarmTopic(email: string | undefined): sns.Topic {
    const topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'Chatwoot service alarms', enforceSSL: true });
    if (email) {
      topic.addSubscription(new subscriptions.EmailSubscription(email));
      acknowledge(topic, {
        'Serverless::Serverless-SNSRedrivePolicy':
          'An email subscription: a dead-letter queue of undelivered alarm emails would itself need someone watching it',
      });
    }
    return topic;
  }

  private acknowledgeFargate(cable: FargateCable): void {
    const queues = "Each socket-server task creates its own queue, named by the prefix and the task's id: the prefix is the grant";
    const queueRule = `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:${cable.queuePrefix}cable-*]`;
    acknowledge(this.pipeline.dispatchFunction, { [queueRule]: queues });
    acknowledge(cable, { [queueRule]: queues });
    acknowledge(cable.vpc, {
      'AwsSolutions::AwsSolutions-VPC7':
        'The VPC holds only the socket-server tasks and their load balancer; flow logs would record every client ping for a cost per GB, and the tasks log every connection',
    });
    acknowledge(cable.cluster, {
      'AwsSolutions::AwsSolutions-ECS4':
        'Container Insights bills per metric for one small service; the tasks log to CloudWatch Logs and the load balancer reports healthy targets',
    });
    acknowledge(cable.taskDefinition, {
      'AwsSolutions::AwsSolutions-ECS2':
        'The environment holds names only (table name, secret ARN, queue prefix, port, log level); the token key is read from Secrets Manager at run time',
      'AwsSolutions::AwsSolutions-IAM5[Resource::*]':
        "The execution role's ecr:GetAuthorizationToken (pulling the image) has no resource-level permissions",
    });
    acknowledge(cable.node.findChild('ServiceSecurityGroup'), {
      'AwsSolutions::AwsSolutions-EC23':
        "Ingress is the VPC's own CIDR on the server port (the Network Load Balancer's nodes), not the internet; the rule reads it as a token",
    });
    acknowledge(cable.loadBalancer, {
      'AwsSolutions::AwsSolutions-ELB2':
        'Network Load Balancers write access logs for TLS listeners only; this one is a TCP listener behind CloudFront (TLS ends there)',
    });
    acknowledge(cable.distribution, {
      'AwsSolutions::AwsSolutions-CFR1': "Chatwoot's widget runs on customers' sites worldwide: no country may be blocked by default",
      'AwsSolutions::AwsSolutions-CFR2':
        'A socket is one request per connection; every channel subscription is authorised by its pubsub token on the server, and the HTTP API has its own throttling',
      'AwsSolutions::AwsSolutions-CFR3':
        'A socket is one request per connection: the server logs every connection, subscription and disconnection itself',
      'AwsSolutions::AwsSolutions-CFR4':
        "The distribution's default *.cloudfront.net certificate takes no minimum protocol setting; CloudFront's own security policy applies",
      'AwsSolutions::AwsSolutions-CFR5':
        'TLS ends at CloudFront; a TLS listener on the load balancer would need a certificate for a domain the stack does not own (the hop to the origin stays on AWS edge-to-region paths)',
    });
  }

  private acknowledgeWebSocketApi(cable: WebSocketApi): void {
    const cableApiId = Stack.of(cable.api).resolve((cable.api.node.defaultChild as CfnResource).logicalId);
    const connections = {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${cableApiId}>/*/*/@connections/*]`]:
        'Socket connection ids are made by API Gateway per connection: posting to any connection of this one API is the grant',
    };
    acknowledge(cable, {
      ...connections,
      'AwsSolutions::AwsSolutions-APIG4':
        "ActionCable's own identification: each channel subscription carries the contact's or user's pubsub token, checked by the $default function",
      'AwsSolutions::AwsSolutions-APIG1':
        'WebSocket access logs need the account-wide API Gateway CloudWatch role, an account setting a stack should not take over; the socket functions log every connect, subscribe and disconnect',
      'Serverless::Serverless-APIGWAccessLogging':
        'WebSocket access logs need the account-wide API Gateway CloudWatch role, an account setting a stack should not take over; the socket functions log every connect, subscribe and disconnect',
      'Serverless::Serverless-EventBusDLQ':
        "A missed pinger run is replaced by the next minute's run; a dead-letter queue of stale schedule events would hold nothing useful",
    });
    acknowledge(this.pipeline.dispatchFunction, connections);
  }
}
