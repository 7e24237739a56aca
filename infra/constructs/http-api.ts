import { type CfnResource, Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { acknowledge, grantTableData, LAMBDA_ROLE_ACKNOWLEDGMENTS } from './grants.ts';
import { functionOptions, type FunctionSettings } from './logs.ts';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import * as keys from '#shared/db/keys.ts';
import type { FunctionBundles } from '../bundles.ts';
import { DEFAULT_ROUTE, functionName, methodsOf, routeKeyOf, stackGroup, type AccessClass, type Route } from '../routes.ts';

export const ACCESS_CLASSES: readonly AccessClass[] = ['read', 'write', 'tokens', 'uploads', 'channels'];

/**
 * Headers browsers may send cross-origin: the API token and its Bearer alias, and the web widget's
 * visitor token (`X-Auth-Token`, sent from the customer's site), and the signed-in session's headers.
 */
const SESSION_HEADERS = ['access-token', 'client', 'uid', 'expiry', 'token-type'];
const CORS_HEADERS = ['api_access_token', 'content-type', 'authorization', 'x-auth-token', ...SESSION_HEADERS];

/**
 * One JSON object per request: what a Logs Insights query filters on (route, status, latencies) and why
 * an integration failed (a function that crashed or timed out never wrote its own log line about it).
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  error: '$context.error.message',
} as const;

export interface HttpApiRoutesProps {
  /** The route table: one function per row, one API route per (method, path). */
  routes: Route[];
  /** Prebuilt bundles by function name (infra/build.ts). */
  bundles: FunctionBundles;
  table: dynamodb.ITable;
  tokenKey: secretsmanager.ISecret;
  avatars: s3.IBucket;
  /** Runtime, memory, log retention, tracing and log level of every route function. */
  functions: FunctionSettings;
  /**
   * Default route throttling of the $default stage: the service's own ceiling (cost, Lambda concurrency);
   * fairness between tenants is the per-account and per-credential limits. @default rate 1000/s, burst 2000
   */
  throttle?: apigw.ThrottleSettings;
  /** Request limits per account and per credential (docs/api.md#request-limits). @default the configuration's defaults */
  limits?: RequestLimits;
  /** The model of Captain's tasks. @default OpenAI's API and gpt-4o-mini */
  captain?: CaptainModel;
  /** JSON access logs of the $default stage, kept as long as the function logs. @default true */
  accessLogs?: boolean;
  /** Origins browsers may call the API from. @default ['*'] */
  corsOrigins?: string[];
  /** Base URL of the service in links it hands out (custom domain or front door). @default the API's execute-api URL */
  publicBaseUrl?: string;
}

/**
 * The HTTP API and one Lambda per route. Functions, integrations, routes and invoke permissions live in
 * one nested stack per `stackGroup` (interface + resource folder), so the route table can grow to
 * ~150 rows without any stack nearing CloudFormation's 500-resource limit; the API, the stage and the
 * per-access-class roles stay in the parent.
 */
export class HttpApiRoutes extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  /** Base URL of the API (no trailing slash): the $default stage serves at the root. */
  readonly url: string;
  readonly roles: Record<AccessClass, iam.Role>;
  readonly functions = new Map<string, lambda.Function>();
  readonly groups = new Map<string, NestedStack>();

  constructor(scope: Construct, id: string, props: HttpApiRoutesProps) {
    super(scope, id);
    checkRouteKeys(props.routes);

    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'Chatwoot-compatible API',
      createDefaultStage: false,
      corsPreflight: {
        allowOrigins: props.corsOrigins ?? ['*'],
        allowMethods: [
          apigw.CorsHttpMethod.GET,
          apigw.CorsHttpMethod.POST,
          apigw.CorsHttpMethod.PATCH,
          apigw.CorsHttpMethod.PUT,
          apigw.CorsHttpMethod.DELETE,
        ],
        allowHeaders: CORS_HEADERS,
        // A browser app must read the session headers sign-in answers with.
        exposeHeaders: [...SESSION_HEADERS, 'retry-after'],
        maxAge: Duration.days(1),
      },
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 1000, burstLimit: 2000 },
      accessLogSettings:
        props.accessLogs === false
          ? undefined
          : {
              destination: new apigw.LogGroupLogDestination(
                new logs.LogGroup(this, 'AccessLogs', { retention: props.functions.logRetention, removalPolicy: RemovalPolicy.DESTROY }),
              ),
              format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
            },
    });
    this.url = props.publicBaseUrl ?? this.api.apiEndpoint;

    this.roles = accessRoles(this, props);
    // Every class opens sealed secrets (an inbox's HMAC token, a webhook's secret) when it reads them.
    const common = {
      TABLE_NAME: props.table.tableName,
      PUBLIC_BASE_URL: this.url,
      LOG_LEVEL: props.functions.logLevel,
      TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
      ...limitEnvironment(props.limits),
      ...(props.captain?.endpoint ? { CAPTAIN_OPEN_AI_ENDPOINT: props.captain.endpoint } : {}),
      ...(props.captain?.model ? { CAPTAIN_OPEN_AI_MODEL: props.captain.model } : {}),
    };
    // Each class sees only the names its permissions cover.
    const environment: Record<AccessClass, Record<string, string>> = {
      read: common,
      write: common,
      tokens: common,
      uploads: { ...common, AVATAR_BUCKET: props.avatars.bucketName },
      // The channel-inbound queue and the providers' settings are added by the service once its pipeline exists;
      // the files bucket holds webhook bodies and raw mails too large for a queue message.
      channels: { ...common, AVATAR_BUCKET: props.avatars.bucketName },
    };

    for (const route of props.routes) {
      const group = stackGroup(route);
      let stack = this.groups.get(group);
      if (!stack) {
        stack = new NestedStack(this, `Routes-${group}`, { description: `Route functions: ${group}` });
        this.groups.set(group, stack);
      }
      const name = functionName(route);
      const bundle = props.bundles[name];
      if (!bundle) throw new Error(`No bundle for ${name} (${route.handler}): run buildFunctions() with this route table`);
      const methods = methodsOf(route);
      const fn = new lambda.Function(stack, name, {
        ...functionOptions(stack, name, props.functions),
        description: `${methods.join('|')} ${route.path}`.slice(0, 256),
        code: lambda.Code.fromAsset(bundle.dir),
        handler: 'index.handler',
        // API Gateway gives up at 29 s; a function running longer would only burn money.
        timeout: Duration.seconds(29),
        role: this.roles[route.access],
        environment: environment[route.access],
      });
      this.functions.set(name, fn);
      // Not scoped to the route: ONE invoke permission per function for the whole API, however many
      // methods it serves, instead of one per route.
      const integration = new HttpLambdaIntegration(`${name}-integration`, fn, { scopePermissionToRoute: false });
      for (const method of methods) {
        new apigw.HttpRoute(stack, `${name}-${method}`, {
          httpApi: this.api,
          routeKey:
            route.path === DEFAULT_ROUTE ? apigw.HttpRouteKey.DEFAULT : apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[method]),
          integration,
        });
      }
    }
  }
}

export interface RequestLimits {
  accountPerMinute?: number;
  accountBurst?: number;
  credentialPerMinute?: number;
  credentialBurst?: number;
  /** The file route, per client address. */
  filePerMinute?: number;
  fileBurst?: number;
  /** Percent of a window's quota a container counts before adding it to the shared window (0: never). */
  syncPercent?: number;
}

/** An OpenAI-compatible chat completions service: its base URL (without `/v1`) and model. */
export interface CaptainModel {
  endpoint?: string;
  model?: string;
}

function limitEnvironment(limits: RequestLimits = {}): Record<string, string> {
  const names: Record<keyof RequestLimits, string> = {
    accountPerMinute: 'LIMIT_ACCOUNT_PER_MINUTE',
    accountBurst: 'LIMIT_ACCOUNT_BURST',
    credentialPerMinute: 'LIMIT_CREDENTIAL_PER_MINUTE',
    credentialBurst: 'LIMIT_CREDENTIAL_BURST',
    filePerMinute: 'LIMIT_FILE_PER_MINUTE',
    fileBurst: 'LIMIT_FILE_BURST',
    syncPercent: 'LIMIT_SYNC_PERCENT',
  };
  return Object.fromEntries(
    Object.entries(limits)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [names[k as keyof RequestLimits], String(v)]),
  );
}

/** One shared role per access class (least privilege per class, not per route). */
function accessRoles(scope: Construct, props: HttpApiRoutesProps): Record<AccessClass, iam.Role> {
  const roles = {} as Record<AccessClass, iam.Role>;
  for (const access of ACCESS_CLASSES) {
    roles[access] = new iam.Role(scope, `${access}-role`, {
      description: `Route functions of access class "${access}"`,
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
    });
  }
  grantTableData(props.table, roles.read, 'read');
  // Provider webhooks: the inbox is read, nothing written (the queue grant comes with the pipeline's queue).
  grantTableData(props.table, roles.channels, 'read');
  // Read-only routes still count their requests in the shared limit windows: UpdateItem on those items only.
  iam.Grant.addToPrincipal({
    grantee: roles.read,
    actions: ['dynamodb:UpdateItem'],
    resourceArns: [props.table.tableArn],
    conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${keys.rateWindow('*', 0).pk}`] } },
  });
  for (const access of ['write', 'tokens', 'uploads'] as const) grantTableData(props.table, roles[access], 'write');
  // Sealed secrets are opened where they are read (repositories), so every class reads the key; it is
  // fetched once per container, and only by a function that opens or seals something.
  for (const access of ACCESS_CLASSES) props.tokenKey.grantRead(roles[access]);
  // Files are written, read through presigned URLs signed with this role (the file route checks that the
  // object exists first), and deleted with their message: nothing else.
  iam.Grant.addToPrincipal({
    grantee: roles.uploads,
    actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
    resourceArns: [props.avatars.arnForObjects('*')],
  });
  for (const role of Object.values(roles)) acknowledge(role, LAMBDA_ROLE_ACKNOWLEDGMENTS);
  const bucketId = Stack.of(props.avatars).resolve((props.avatars.node.defaultChild as CfnResource).logicalId);
  acknowledge(roles.uploads, {
    [`AwsSolutions::AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`]:
      'Avatar objects have generated keys: the grant covers the objects of the one avatar bucket',
  });
  return roles;
}

function checkRouteKeys(routes: Route[]): void {
  const seen = new Map<string, string>();
  for (const route of routes) {
    for (const method of methodsOf(route)) {
      const key = routeKeyOf(route, method);
      const other = seen.get(key);
      if (other) throw new Error(`Route ${key} is served by both ${other} and ${route.handler}`);
      seen.set(key, route.handler);
    }
  }
}
