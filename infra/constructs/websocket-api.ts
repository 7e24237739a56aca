import { Duration } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { FunctionBundles } from '../build.ts';
import { CABLE_FUNCTION_NAMES, CABLE_STAGE } from '../cable.ts';
import { grantTableData } from './grants.ts';
import { functionLogGroup, functionOptions, type FunctionSettings } from './logs.ts';

export interface WebSocketApiProps {
  table: dynamodb.ITable;
  /** Prebuilt bundles by function name (infra/build.ts). */
  bundles: FunctionBundles;
  logLevel: string;
  /** Runtime, retention, tracing and log format shared with the other functions (memory stays per function). */
  functions?: FunctionSettings;
  /**
   * Pinger runs side by side, each greeting and pinging its share of the connections. One posts a few
   * hundred frames a second; add one per ~1,500 connections. @default 1
   */
  pingerShards?: number;
  /** Stage throttling (messages per second across all connections). @default rate 500/s, burst 1000 */
  throttle?: { rateLimit: number; burstLimit: number };
}

/**
 * Chatwoot's `/cable` deployed: an API Gateway WebSocket API whose stage is named `cable` (so the
 * socket is `wss://<host>/cable`), $connect / $disconnect / $default functions, and a scheduled pinger
 * (API Gateway sends nothing by itself, and @rails/actioncable clients reconnect after 6 s without a
 * ping). Connection records live in the service table with a TTL.
 */
export class WebSocketApi extends Construct {
  readonly api: apigw.WebSocketApi;
  readonly stage: apigw.WebSocketStage;
  /** `wss://…/cable`: what clients connect to. */
  readonly url: string;
  /** `https://…/cable`: PostToConnection's endpoint. */
  readonly managementEndpoint: string;
  readonly functions: Record<keyof typeof CABLE_FUNCTION_NAMES, lambda.Function>;
  readonly pingerRules: events.Rule[];

  constructor(scope: Construct, id: string, props: WebSocketApiProps) {
    super(scope, id);
    const fn = (key: keyof typeof CABLE_FUNCTION_NAMES, description: string, timeout: Duration, memorySize = 256) => {
      const name = CABLE_FUNCTION_NAMES[key];
      const bundle = props.bundles[name];
      if (!bundle) throw new Error(`No bundle for ${name}: run buildFunctions() first`);
      return new lambda.Function(this, name, {
        ...(props.functions
          ? functionOptions(this, name, props.functions)
          : { logGroup: functionLogGroup(this, name), runtime: lambda.Runtime.NODEJS_22_X, architecture: lambda.Architecture.ARM_64 }),
        description,
        code: lambda.Code.fromAsset(bundle.dir),
        handler: 'index.handler',
        memorySize,
        timeout,
        environment: { TABLE_NAME: props.table.tableName, LOG_LEVEL: props.logLevel },
      });
    };
    const connect = fn('connect', 'WebSocket $connect: records the connection', Duration.seconds(10));
    const disconnect = fn('disconnect', 'WebSocket $disconnect: removes the connection', Duration.seconds(10));
    const dflt = fn('default', 'WebSocket $default: ActionCable subscribe / unsubscribe / message', Duration.seconds(10));
    // A run lasts just under the schedule's minute; the timeout leaves it room to finish its round.
    const ping = fn('ping', 'Greets new socket connections and pings all of them every 3 s', Duration.seconds(75), 512);
    this.functions = { connect, disconnect, default: dflt, ping };

    this.api = new apigw.WebSocketApi(this, 'Api', {
      description: "Chatwoot's /cable (ActionCable)",
      connectRouteOptions: { integration: new WebSocketLambdaIntegration('ConnectIntegration', connect) },
      disconnectRouteOptions: { integration: new WebSocketLambdaIntegration('DisconnectIntegration', disconnect) },
      defaultRouteOptions: { integration: new WebSocketLambdaIntegration('DefaultIntegration', dflt) },
    });
    this.stage = new apigw.WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: CABLE_STAGE,
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 500, burstLimit: 1000 },
    });
    this.url = this.stage.url;
    this.managementEndpoint = this.stage.callbackUrl;

    for (const f of [connect, disconnect, dflt, ping]) grantTableData(props.table, f, 'write');
    for (const f of [dflt, ping]) {
      f.addEnvironment('CABLE_ENDPOINT', this.managementEndpoint);
      this.api.grantManageConnections(f);
    }

    // One scheduled rule per shard (a rule takes at most five targets; scheduled rules cost nothing).
    const shards = Math.max(1, props.pingerShards ?? 1);
    this.pingerRules = Array.from({ length: shards }, (_, shard) => {
      const rule = new events.Rule(this, shards === 1 ? 'PingerSchedule' : `PingerSchedule${shard}`, {
        description: 'Starts the socket pinger every minute',
        schedule: events.Schedule.rate(Duration.minutes(1)),
      });
      rule.addTarget(new targets.LambdaFunction(ping, { event: events.RuleTargetInput.fromObject({ shard, shards }), retryAttempts: 0 }));
      return rule;
    });
  }

  /** Lets a function send frames (the pipeline's dispatcher): the endpoint in its environment, the right to post. */
  allowBroadcast(f: lambda.Function & iam.IGrantable): void {
    f.addEnvironment('CABLE_ENDPOINT', this.managementEndpoint);
    this.api.grantManageConnections(f);
  }
}
