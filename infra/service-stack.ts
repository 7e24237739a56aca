import { CfnOutput, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { FunctionBundles } from './build.ts';
import { EventPipeline } from './constructs/event-pipeline.ts';
import { HttpApiRoutes } from './constructs/http-api.ts';
import { ServiceTable } from './constructs/table.ts';
import { WebSocketApi } from './constructs/websocket-api.ts';
import { routes as routeTable, type Route } from './routes.ts';

export interface ServiceStackProps extends StackProps {
  /** Prebuilt bundles (infra/build.ts `buildFunctions`) for every route row and event handler. */
  bundles: FunctionBundles;
  /** @default THE route table (infra/routes.ts); tests pass synthetic tables. */
  routes?: Route[];
  /** @default 'INFO' */
  logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  /** @default true */
  accessLogs?: boolean;
  /** Socket pinger shards (one per ~1,500 connections). @default 1 */
  cablePingerShards?: number;
}

/** The whole service: table, token key, avatar bucket, HTTP API with its route functions, event pipeline. */
export class ServiceStack extends Stack {
  readonly table: ServiceTable;
  readonly api: HttpApiRoutes;
  readonly pipeline: EventPipeline;
  readonly cable: WebSocketApi;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, { description: 'Chatwoot-compatible serverless messaging API', ...props });
    const logLevel = props.logLevel ?? 'INFO';

    this.table = new ServiceTable(this, 'Data');
    // Losing this key makes every sealed token copy unreadable: it outlives the stack.
    const tokenKey = new secretsmanager.Secret(this, 'TokenKey', {
      description: 'Key material for the encrypted copies of access tokens',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const avatars = new s3.Bucket(this, 'Avatars', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.api = new HttpApiRoutes(this, 'Http', {
      routes: props.routes ?? routeTable,
      bundles: props.bundles,
      table: this.table.table,
      tokenKey,
      avatars,
      logLevel,
      accessLogs: props.accessLogs,
    });
    this.pipeline = new EventPipeline(this, 'Events', {
      table: this.table.table,
      bundles: props.bundles,
      publicBaseUrl: this.api.url,
      logLevel,
      tokenKey,
    });
    // `GET /api` reports whether the queues answer: it alone is told their URLs; reading their attributes
    // is the whole grant (on the shared read role, which holds nothing else of the queues).
    const status = this.api.functions.get('system-api');
    if (status) {
      status.addEnvironment('EVENTS_QUEUE_URL', this.pipeline.eventsQueue.queueUrl);
      status.addEnvironment('DELIVERIES_QUEUE_URL', this.pipeline.deliveriesQueue.queueUrl);
      for (const q of [this.pipeline.eventsQueue, this.pipeline.deliveriesQueue]) q.grant(status, 'sqs:GetQueueAttributes');
    }

    // Chatwoot's /cable: the dispatcher broadcasts through it; the widget config tells clients its URL.
    this.cable = new WebSocketApi(this, 'Cable', {
      table: this.table.table,
      bundles: props.bundles,
      logLevel,
      pingerShards: props.cablePingerShards,
    });
    this.cable.allowBroadcast(this.pipeline.dispatchFunction);
    this.api.functions.get('widget-config')?.addEnvironment('CABLE_URL', this.cable.url);

    new CfnOutput(this, 'CableUrl', { value: this.cable.url, description: 'WebSocket URL of /cable (ActionCable)' });
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName });
    new CfnOutput(this, 'PlatformAppCommand', {
      description: 'Creates a platform app and prints its token once (the first platform token)',
      value: Fn.join('', [
        'TABLE_NAME=',
        this.table.table.tableName,
        ' AWS_REGION=',
        this.region,
        ' TOKEN_KEY_SECRET_ARN=',
        tokenKey.secretArn,
        ' npm run platform-app -- create --name <name>',
      ]),
    });
    new CfnOutput(this, 'ReplayStreamFailuresCommand', {
      description: 'Forwards again the stream records in the failure queue (within the stream retention of 24 h)',
      value: Fn.join('', [
        'npm run replay -- stream-failures --queue-url ',
        this.pipeline.streamFailures.queueUrl,
        ' --events-queue-url ',
        this.pipeline.eventsQueue.queueUrl,
        ' --region ',
        this.region,
      ]),
    });
  }
}
