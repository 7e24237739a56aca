import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sesActions from 'aws-cdk-lib/aws-ses-actions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FunctionBundles } from '../bundles.ts';
import { EVENT_FUNCTION_NAMES } from '../pipeline.ts';
import { acknowledge, grantTableData } from './grants.ts';
import { functionOptions, type FunctionSettings } from './logs.ts';

// Incoming mail deployed (docs/mail.md#ways-in): SES receiving for the inbound domain (a receipt rule: the mail
// into the mail bucket, then the ingest function) and the IMAP poll on a schedule. Both only route a mail and put
// it on the channel-inbound queue; the channel-inbound consumer makes the message.

export interface EmailIngressProps {
  table: dynamodb.ITable;
  bundles: FunctionBundles;
  functions: FunctionSettings;
  tokenKey: secretsmanager.ISecret;
  /** The files bucket: raw mails too large for the queue are kept under `mail/inbound/` (they expire). */
  files: s3.IBucket;
  /** The channel core's inbound queue. */
  inboundQueue: sqs.IQueue;
  /** Chatwoot's MAILER_INBOUND_EMAIL_DOMAIN: SES receives for it. Without it, no SES receiving is set up. */
  inboundEmailDomain?: string;
  /** How often IMAP inboxes are polled (whole minutes; EventBridge's finest is one). @default 1 minute */
  imapPollInterval?: Duration;
  environment: Record<string, string>;
  accessLogs?: s3.IBucket;
  removalPolicy?: RemovalPolicy;
}

/** Where SES puts each received mail in the mail bucket (the object is `<prefix><SES message id>`). */
export const SES_MAIL_PREFIX = 'ses/';

export class EmailIngress extends Construct {
  readonly mailBucket?: s3.Bucket;
  readonly ruleSet?: ses.ReceiptRuleSet;
  readonly sesFunction?: lambda.Function;
  readonly imapFunction: lambda.Function;
  /** Failed asynchronous invocations of both functions (SES's, the schedule's), after Lambda's two retries. */
  readonly dlq: sqs.Queue;
  /** The dead-letter queue's alarm (the service gives it the alarm topic's actions, as the pipeline's). */
  readonly alarms: cloudwatch.Alarm[] = [];

  get functions(): lambda.Function[] {
    return [this.imapFunction, ...(this.sesFunction ? [this.sesFunction] : [])];
  }

  constructor(scope: Construct, id: string, props: EmailIngressProps) {
    super(scope, id);
    this.dlq = new sqs.Queue(this, 'Dlq', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(this.dlq, { 'Serverless::Serverless-SQSRedrivePolicy': 'A dead-letter queue: it has no dead-letter queue of its own' });
    // As the pipeline's dead-letter queues: one message is one SES delivery or IMAP poll run that kept failing.
    this.alarms.push(
      this.dlq
        .metricApproximateNumberOfMessagesVisible({ statistic: cloudwatch.Stats.MAXIMUM, period: Duration.minutes(5) })
        .createAlarm(this, 'DlqAlarm', {
          alarmDescription:
            'Dead-letter queue holds incoming mail SES delivered that could not be queued, or IMAP poll runs that failed (their events hold the SES message id or the schedule time)',
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }),
    );
    const fn = (key: 'emailSes' | 'imapPoll', timeout: Duration, description: string, env: Record<string, string>) => {
      const name = EVENT_FUNCTION_NAMES[key];
      const bundle = props.bundles[name];
      if (!bundle) throw new Error(`No bundle for ${name}: run buildFunctions() first`);
      return new lambda.Function(this, name, {
        ...functionOptions(this, name, props.functions),
        description,
        code: lambda.Code.fromAsset(bundle.dir),
        handler: 'index.handler',
        timeout,
        deadLetterQueue: this.dlq,
        environment: {
          ...props.environment,
          CHANNEL_INBOUND_QUEUE_URL: props.inboundQueue.queueUrl,
          AVATAR_BUCKET: props.files.bucketName,
          ...env,
        },
      });
    };
    const filesId = Stack.of(this).resolve((props.files.node.defaultChild as s3.CfnBucket).logicalId);
    // Raw mails too large for a queue message are kept in the files bucket under their own prefix only.
    const keepRawMails = (f: lambda.Function) => {
      f.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [props.files.arnForObjects('mail/inbound/*')] }));
      acknowledge(f, {
        [`AwsSolutions::AwsSolutions-IAM5[Resource::<${filesId}.Arn>/mail/inbound/*]`]:
          'Raw mails are stored under their Message-ID hash in the mail prefix of the files bucket',
      });
    };

    // IMAP: every inbox with imap_enabled, on a schedule. Role: table read/write (its lease and progress), the token
    // key (IMAP passwords are sealed), raw mails into the files bucket, the inbound queue.
    const domainEnv: Record<string, string> = props.inboundEmailDomain ? { MAILER_INBOUND_EMAIL_DOMAIN: props.inboundEmailDomain } : {};
    this.imapFunction = fn('imapPoll', Duration.minutes(5), 'IMAP inboxes polled for new mail', {
      TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
      ...domainEnv,
    });
    grantTableData(props.table, this.imapFunction, 'write');
    props.tokenKey.grantRead(this.imapFunction);
    props.inboundQueue.grantSendMessages(this.imapFunction);
    keepRawMails(this.imapFunction);
    new events.Rule(this, 'ImapSchedule', {
      description: 'Polls the IMAP inboxes',
      schedule: events.Schedule.rate(props.imapPollInterval ?? Duration.minutes(1)),
      targets: [new eventTargets.LambdaFunction(this.imapFunction, { retryAttempts: 0, deadLetterQueue: this.dlq })],
    });

    const domain = props.inboundEmailDomain;
    if (!domain) return;
    this.mailBucket = new s3.Bucket(this, 'MailBucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // A mail is read once, right after SES stored it; kept a week for a look when something went wrong.
      lifecycleRules: [{ expiration: Duration.days(7) }],
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      ...(props.accessLogs ? { serverAccessLogsBucket: props.accessLogs, serverAccessLogsPrefix: 'mail/' } : {}),
    });
    // SES: the mail into the bucket, then the function (an Event invocation, so SES does not wait for it).
    // Role: read the stored mails, table read (routing), raw mails into the files bucket, the inbound queue.
    this.sesFunction = fn('emailSes', Duration.seconds(60), 'Mail received by SES to the channel-inbound queue', {
      SES_MAIL_BUCKET: this.mailBucket.bucketName,
      SES_MAIL_PREFIX,
      ...domainEnv,
    });
    this.sesFunction.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [this.mailBucket.arnForObjects(`${SES_MAIL_PREFIX}*`)] }),
    );
    const mailId = Stack.of(this).resolve((this.mailBucket.node.defaultChild as s3.CfnBucket).logicalId);
    acknowledge(this.sesFunction, {
      [`AwsSolutions::AwsSolutions-IAM5[Resource::<${mailId}.Arn>/${SES_MAIL_PREFIX}*]`]:
        'SES names each stored mail by its own message id',
    });
    grantTableData(props.table, this.sesFunction, 'read');
    props.inboundQueue.grantSendMessages(this.sesFunction);
    keepRawMails(this.sesFunction);

    this.ruleSet = new ses.ReceiptRuleSet(this, 'RuleSet', {
      rules: [
        {
          recipients: [domain],
          scanEnabled: true,
          tlsPolicy: ses.TlsPolicy.OPTIONAL,
          actions: [
            new sesActions.S3({ bucket: this.mailBucket, objectKeyPrefix: SES_MAIL_PREFIX }),
            new sesActions.Lambda({ function: this.sesFunction, invocationType: sesActions.LambdaInvocationType.EVENT }),
          ],
        },
      ],
    });
  }
}
