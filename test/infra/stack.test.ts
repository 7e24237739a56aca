import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_FUNCTION_NAMES, ROOT, type FunctionBundles } from '../../infra/build.ts';
import { ACCESS_LOG_FIELDS } from '../../infra/constructs/http-api.ts';
import { testBundles } from './bundles.ts';
import { EVENT_SOURCE_TYPES, STREAM_SOURCE_TYPES } from '#shared/model/change.ts';
import { AUDITED_TYPES } from '#shared/model/audit.ts';
import { QUEUES, STREAM_SOURCE } from '../../infra/pipeline.ts';
import { functionName, methodsOf, routeKeyOf, routes, stackGroup, type Route } from '../../infra/routes.ts';
import { ServiceStack, type ServiceStackProps } from '../../infra/service-stack.ts';
import { INDEXES, SLIM_ACTIVITY_INDEX, TTL_ATTRIBUTE, TYPE_ATTRIBUTE } from '#shared/db/table.ts';
import { ServiceTable } from '../../infra/constructs/table.ts';
import { changeOf } from '#shared/events/forward.ts';

type Resources = Record<string, { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string }>;

// The same feature flags as `npx cdk synth`, so the test sees the deployed template.
const context = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
const CFN_RESOURCE_LIMIT = 500;

// Properties that would give a resource a physical name (and block replacement, and collide across stacks).
const NAME_PROPERTIES: Record<string, string> = {
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::CloudWatch::Alarm': 'AlarmName',
};

let workDir: string;
let bundles: FunctionBundles;

interface Synthesized {
  stack: ServiceStack;
  parent: Template;
  /** stack group → template of its nested stack. */
  nested: Map<string, Template>;
  all: Template[];
}

function synth(
  routeTable: Route[],
  outdir: string,
  stackBundles: FunctionBundles = bundles,
  options: Partial<ServiceStackProps> = { alarmEmail: 'ops@example.com' },
): Synthesized {
  const app = new App({ outdir, context });
  const stack = new ServiceStack(app, 'Test', { bundles: stackBundles, routes: routeTable, ...options });
  const parent = Template.fromStack(stack);
  const nested = new Map([...stack.api.groups].map(([group, s]) => [group, Template.fromStack(s)] as const));
  return { stack, parent, nested, all: [parent, ...nested.values()] };
}

const resources = (t: Template) => t.toJSON().Resources as Resources;
const ofType = (t: Template, type: string) => Object.entries(resources(t)).filter(([, r]) => r.Type === type);
const logicalId = (construct: { node: { defaultChild?: unknown } }) => {
  const cfn = construct.node.defaultChild as CfnResource;
  return Stack.of(cfn).getLogicalId(cfn);
};

let real: Synthesized;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'stack-test-'));
  bundles = testBundles();
  real = synth(routes, join(workDir, 'cdk.out'));
}, 600_000); // one esbuild pass over ~100 entries plus a synth: seconds when idle, more on a loaded CI box

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('route functions', () => {
  it('gives every function (routes and pipeline) its own log group with a retention', () => {
    for (const template of [real.parent, ...real.nested.values()]) {
      const res = resources(template);
      for (const [id, fn] of ofType(template, 'AWS::Lambda::Function')) {
        const ref = fn.Properties!.LoggingConfig?.LogGroup?.Ref as string | undefined;
        expect(ref, id).toBeDefined();
        expect(res[ref!]).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } });
      }
    }
  });

  it('puts every row in the nested stack of its group', () => {
    expect(new Set(real.nested.keys())).toEqual(new Set(routes.map(stackGroup)));
    for (const route of routes) {
      const fn = real.stack.api.functions.get(functionName(route));
      expect(fn, route.handler).toBeDefined();
      expect(Stack.of(fn!)).toBe(real.stack.api.groups.get(stackGroup(route)));
    }
  });

  it('has exactly one function per row and nothing else in the nested stacks', () => {
    const fns = [...real.nested.values()].flatMap((t) => ofType(t, 'AWS::Lambda::Function'));
    expect(fns).toHaveLength(routes.length);
    expect(real.stack.api.functions.size).toBe(routes.length);
  });

  it('routes exactly the (method, path) pairs of the table, each to its own row function', () => {
    const expected = new Map(routes.flatMap((r) => methodsOf(r).map((m) => [routeKeyOf(r, m), functionName(r)] as const)));
    // Function logical id in its own template → function name.
    const names = new Map([...real.stack.api.functions].map(([name, fn]) => [`${Stack.of(fn).node.path}/${logicalId(fn)}`, name]));
    const seen = new Map<string, string>();
    const templates: [Stack, Template][] = [
      [real.stack, real.parent],
      ...[...real.nested].map(([g, t]): [Stack, Template] => [real.stack.api.groups.get(g)!, t]),
    ];
    for (const [stack, template] of templates) {
      const res = resources(template);
      for (const [, route] of ofType(template, 'AWS::ApiGatewayV2::Route')) {
        // The WebSocket API's routes ($connect, …) are /cable's (cableTransport 'websocket-api', checked in cable-transport.test.ts).
        if (real.stack.cable && route.Properties!.ApiId?.Ref === logicalId(real.stack.cable.api)) continue;
        const key = route.Properties!.RouteKey as string;
        expect(seen.has(key), `duplicate route ${key}`).toBe(false);
        const integration = res[route.Properties!.Target['Fn::Join'][1][1].Ref];
        expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
        const fnId = integration.Properties!.IntegrationUri['Fn::GetAtt'][0] as string;
        seen.set(key, names.get(`${stack.node.path}/${fnId}`) ?? `unknown ${fnId}`);
      }
    }
    expect(seen).toEqual(expected);
  });

  it('grants API Gateway one invoke permission per function, for the whole API', () => {
    for (const template of real.nested.values()) {
      const fnIds = ofType(template, 'AWS::Lambda::Function').map(([id]) => id);
      const permissions = ofType(template, 'AWS::Lambda::Permission');
      expect(permissions.map(([, p]) => p.Properties!.FunctionName['Fn::GetAtt'][0]).sort()).toEqual([...fnIds].sort());
      for (const [, p] of permissions) {
        expect(p.Properties!.Principal).toBe('apigateway.amazonaws.com');
        expect(JSON.stringify(p.Properties!.SourceArn)).toMatch(/"\/\*\/\*\/\*"\]/);
      }
    }
  });

  it('gives each function the shared role of its access class and the matching environment', () => {
    const parentResources = resources(real.parent);
    for (const route of routes) {
      const group = real.stack.api.groups.get(stackGroup(route))!;
      const nestedParams = parentResources[logicalId({ node: { defaultChild: group.nestedStackResource } })].Properties!.Parameters;
      const fnProps = resources(real.nested.get(stackGroup(route))!)[logicalId(real.stack.api.functions.get(functionName(route))!)]
        .Properties!;
      expect(nestedParams[fnProps.Role.Ref], route.handler).toEqual({
        'Fn::GetAtt': [logicalId(real.stack.api.roles[route.access]), 'Arn'],
      });
      expect(fnProps.Timeout).toBe(29);
      expect(fnProps.MemorySize).toBe(512);
      expect(fnProps.Handler).toBe('index.handler');
      const env = Object.keys(fnProps.Environment.Variables);
      expect(env).toEqual(expect.arrayContaining(['TABLE_NAME', 'PUBLIC_BASE_URL', 'LOG_LEVEL']));
      // Every class opens sealed secrets where it reads them.
      expect(env.includes('TOKEN_KEY_SECRET_ARN')).toBe(true);
      // Uploads, and the provider routes (they keep large raw mails and webhook bodies).
      expect(env.includes('AVATAR_BUCKET')).toBe(route.access === 'uploads' || route.access === 'channels');
      // Only the provider webhooks are told the channel-inbound queue.
      expect(env.includes('CHANNEL_INBOUND_QUEUE_URL'), route.path).toBe(route.access === 'channels');
      // Only the status routes (`GET /api`, `GET /health`) are told where the queues are.
      expect(env.includes('EVENTS_QUEUE_URL'), route.path).toBe(route.path === '/api' || route.path === '/health');
    }
  });

  it('lets the read role read the attributes of the two queues and nothing more of them', () => {
    const statements = ofType(real.parent, 'AWS::IAM::Policy')
      .filter(([, r]) => r.Properties!.Roles.some((role: { Ref: string }) => role.Ref === logicalId(real.stack.api.roles.read)))
      .flatMap(([, r]) => r.Properties!.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const sqsStatements = statements.filter((st) => [st.Action].flat().some((a) => a.startsWith('sqs:')));
    expect(sqsStatements.map((st) => st.Action)).toEqual(['sqs:GetQueueAttributes']);
    expect([sqsStatements[0].Resource].flat()).toEqual([
      { 'Fn::GetAtt': [logicalId(real.stack.pipeline.eventsQueue), 'Arn'] },
      { 'Fn::GetAtt': [logicalId(real.stack.pipeline.deliveriesQueue), 'Arn'] },
    ]);
  });

  it('lets the read role write nothing but the shared request-limit windows', () => {
    const statements = ofType(real.parent, 'AWS::IAM::Policy')
      .filter(([, r]) => r.Properties!.Roles.some((role: { Ref: string }) => role.Ref === logicalId(real.stack.api.roles.read)))
      .flatMap(([, r]) => r.Properties!.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[]);
    const writes = statements.filter((st) => [st.Action].flat().some((a) => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(a)));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.Action).toBe('dynamodb:UpdateItem');
    expect(writes[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['LIMIT#*'] } });
  });

  it('has throttling on the $default stage', () => {
    real.parent.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 },
    });
  });
});

describe('every stack', () => {
  it('runs all functions on nodejs22.x arm64', () => {
    const fns = real.all.flatMap((t) => ofType(t, 'AWS::Lambda::Function'));
    // /cable on Fargate by default: no socket functions (cable-transport.test.ts has the WebSocket API's); no inbound
    // mail domain by default: no SES ingest function (its test below has one).
    expect(fns).toHaveLength(routes.length + Object.keys(EVENT_FUNCTION_NAMES).length - 1);
    for (const [id, fn] of fns) {
      expect(fn.Properties!.Runtime, id).toBe('nodejs22.x');
      expect(fn.Properties!.Architectures, id).toEqual(['arm64']);
    }
  });

  it('names no resource physically', () => {
    for (const template of real.all) {
      for (const [id, r] of Object.entries(resources(template))) {
        const prop = NAME_PROPERTIES[r.Type];
        if (prop) expect(r.Properties?.[prop], `${id} ${prop}`).toBeUndefined();
      }
    }
  });

  it('stays under the resource limit', () => {
    for (const template of real.all) expect(Object.keys(resources(template)).length).toBeLessThan(CFN_RESOURCE_LIMIT);
  });
});

describe('observability', () => {
  it('traces every function with X-Ray and logs JSON', () => {
    for (const [id, fn] of real.all.flatMap((t) => ofType(t, 'AWS::Lambda::Function'))) {
      expect(fn.Properties!.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(fn.Properties!.LoggingConfig, id).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO' });
    }
  });

  it('writes JSON access logs with the route, status, latencies and integration error', () => {
    const [, stage] = ofType(real.parent, 'AWS::ApiGatewayV2::Stage')[0];
    const format = JSON.parse(stage.Properties!.AccessLogSettings.Format);
    expect(format).toEqual(ACCESS_LOG_FIELDS);
    expect(format).toMatchObject({
      routeKey: '$context.routeKey',
      status: '$context.status',
      integrationError: '$context.integrationErrorMessage',
    });
  });

  it('notifies the alarm topic from every alarm, in every stack', () => {
    const [[topicId]] = ofType(real.parent, 'AWS::SNS::Topic');
    real.parent.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    const alarms = real.all.flatMap((t) => ofType(t, 'AWS::CloudWatch::Alarm'));
    // API 5xx and p99, 2 per pipeline function, iterator age, 2 queue ages, 3 DLQs, 2 per ten route functions.
    expect(alarms.length).toBeGreaterThanOrEqual(2 + 6 + 1 + 2 + 3 + 2 * real.nested.size);
    for (const [id, alarm] of alarms) {
      expect(alarm.Properties!.AlarmActions, id).toHaveLength(1);
      expect(JSON.stringify(alarm.Properties!.AlarmActions), id).toMatch(topicId.slice(0, 10));
    }
    const metrics = new Set(
      alarms.flatMap(([, a]) => [
        a.Properties!.MetricName,
        ...(a.Properties!.Metrics ?? []).map((m: any) => m.MetricStat?.Metric?.MetricName),
      ]),
    );
    for (const name of [
      '5xx',
      'Latency',
      'Errors',
      'Throttles',
      'IteratorAge',
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
    ]) {
      expect(metrics.has(name), name).toBe(true);
    }
    real.parent.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('without alarm options still notifies: its own topic, output with a subscribe command, acts on every alarm', () => {
    const bare = synth(routes, join(workDir, 'cdk.out.no-alarm-options'), bundles, {});
    const topics = ofType(bare.parent, 'AWS::SNS::Topic');
    expect(topics).toHaveLength(1);
    const [[topicId]] = topics;
    bare.parent.resourceCountIs('AWS::SNS::Subscription', 0);
    const alarms = bare.all.flatMap((t) => ofType(t, 'AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBe(real.all.flatMap((t) => ofType(t, 'AWS::CloudWatch::Alarm')).length);
    // Any alarm without an action (ALARM and OK) fails here, in whichever stack or construct it was made.
    const silent = alarms.filter(([, a]) => !(a.Properties!.AlarmActions?.length && a.Properties!.OKActions?.length)).map(([id]) => id);
    expect(silent).toEqual([]);
    for (const [id, alarm] of alarms) {
      for (const actions of [alarm.Properties!.AlarmActions, alarm.Properties!.OKActions]) {
        expect(actions, id).toHaveLength(1);
        // The parent's topic, by Ref there and through a nested stack's parameter elsewhere.
        expect(JSON.stringify(actions), id).toMatch(topicId.slice(0, 10));
      }
    }
    const outputs = bare.parent.toJSON().Outputs as Record<string, { Value: unknown }>;
    const output = (name: string) => Object.entries(outputs).find(([key]) => key.includes(name))?.[1].Value;
    expect(output('AlarmTopicArn')).toEqual({ Ref: topicId });
    const command = JSON.stringify(output('AlarmSubscribeCommand'));
    expect(command).toContain('aws sns subscribe --protocol email --notification-endpoint <address> --topic-arn ');
    expect(command).toContain(JSON.stringify({ Ref: topicId }));
  }, 120_000);

  it('watches every route function for errors and throttles', () => {
    const watched = new Map<string, Set<string>>();
    for (const template of real.nested.values()) {
      for (const [, alarm] of ofType(template, 'AWS::CloudWatch::Alarm')) {
        for (const m of alarm.Properties!.Metrics ?? []) {
          const stat = m.MetricStat?.Metric;
          if (!stat) continue;
          const fn = stat.Dimensions[0].Value.Ref as string;
          watched.set(fn, new Set([...(watched.get(fn) ?? []), stat.MetricName]));
        }
      }
    }
    expect(watched.size).toBe(real.stack.api.functions.size);
    for (const [fn, names] of watched) expect([...names].sort(), fn).toEqual(['Errors', 'Throttles']);
  });
});

describe('data', () => {
  it('is one retained table with the stream, the indexes and TTL', () => {
    real.parent.resourceCountIs('AWS::DynamoDB::Table', 1);
    real.parent.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    real.parent.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    // The id the table had before the stack became a construct: an upgrade must update it in place.
    expect(ofType(real.parent, 'AWS::DynamoDB::Table').map(([id]) => id)).toEqual(['DataTableFDBAD0F2']);
    real.parent.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      GlobalSecondaryIndexes: Object.values(INDEXES).map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.pk, KeyType: 'HASH' },
          { AttributeName: i.sk, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    });
  });

  it('keeps the slim activity index beside gsi3w only for the upgrade deployment (slimActivityIndex)', () => {
    const indexes = (slim: boolean) => {
      const stack = new Stack(new App({ context }), 'Table');
      new ServiceTable(stack, 'Data', { slimActivityIndex: slim });
      const [table] = Object.values(Template.fromStack(stack).findResources('AWS::DynamoDB::Table')) as {
        Properties: Record<string, any>;
      }[];
      // Two indexes share gsi3pk/gsi3sk: each attribute is defined once.
      const names = table.Properties.AttributeDefinitions.map((a: { AttributeName: string }) => a.AttributeName);
      expect(new Set(names).size).toBe(names.length);
      return table.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown; Projection: unknown }[];
    };
    expect(indexes(false).map((i) => i.IndexName)).toEqual(Object.values(INDEXES).map((i) => i.name));
    const upgrading = indexes(true);
    expect(upgrading.map((i) => i.IndexName)).toEqual([...Object.values(INDEXES).map((i) => i.name), SLIM_ACTIVITY_INDEX.name]);
    expect(upgrading.find((i) => i.IndexName === SLIM_ACTIVITY_INDEX.name)).toEqual({
      IndexName: 'gsi3',
      KeySchema: [
        { AttributeName: 'gsi3pk', KeyType: 'HASH' },
        { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...SLIM_ACTIVITY_INDEX.include] },
    });
    // The functions may read the slim index it replaces (their fallback while gsi3w is built).
    const policies = JSON.stringify(real.all.map((t) => t.findResources('AWS::IAM::Policy')));
    for (const name of [INDEXES.gsi3.name, SLIM_ACTIVITY_INDEX.name]) expect(policies).toContain(`/index/${name}"`);
    expect(upgrading.find((i) => i.IndexName === INDEXES.gsi3.name)).toMatchObject({
      KeySchema: [
        { AttributeName: 'gsi3pk', KeyType: 'HASH' },
        { AttributeName: 'gsi3sk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    });
  });

  it('has a private, encrypted, TLS-only avatar bucket and a retained token key', () => {
    real.parent.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.objectLike({}),
    });
    real.parent.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    real.parent.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ GenerateSecretString: Match.anyValue() }),
    });
  });
});

describe('event pipeline', () => {
  const queues = () => ofType(real.parent, 'AWS::SQS::Queue');
  const byId = (id: string) => resources(real.parent)[id];

  it('has a FIFO events queue with a FIFO dead-letter queue', () => {
    const [, events] = queues().find(([, q]) => q.Properties!.FifoQueue && q.Properties!.RedrivePolicy)!;
    expect(events.Properties).toMatchObject({
      ContentBasedDeduplication: false,
      VisibilityTimeout: QUEUES.events.visibilityTimeoutSeconds,
      RedrivePolicy: { maxReceiveCount: QUEUES.events.maxReceiveCount },
    });
    const dlq = byId(events.Properties!.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]);
    expect(dlq.Properties!.FifoQueue).toBe(true);
  });

  it('has a FIFO deliveries queue (ordered per receiver and conversation) with a FIFO dead-letter queue the deliver function may send to', () => {
    const [, deliveries] = queues().find(([, q]) => q.Properties!.RedrivePolicy?.maxReceiveCount === QUEUES.deliveries.maxReceiveCount)!;
    expect(deliveries.Properties).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: false,
      VisibilityTimeout: QUEUES.deliveries.visibilityTimeoutSeconds,
      RedrivePolicy: { maxReceiveCount: QUEUES.deliveries.maxReceiveCount },
    });
    const dlqId = deliveries.Properties!.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0];
    expect(byId(dlqId).Properties).toMatchObject({ FifoQueue: true });
    const deliver = ofType(real.parent, 'AWS::Lambda::Function').find(([, f]) => f.Properties!.Environment?.Variables?.DELIVERIES_DLQ_URL)!;
    expect(deliver[1].Properties!.Environment.Variables.DELIVERIES_DLQ_URL).toEqual({ Ref: dlqId });
  });

  it('alarms on every dead-letter queue', () => {
    const dlqs = new Set(
      queues().flatMap(([, q]) => (q.Properties!.RedrivePolicy ? [q.Properties!.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0]] : [])),
    );
    // The stream's failures land in a bucket that notifies a queue: that queue is alarmed on.
    for (const [, m] of ofType(real.parent, 'AWS::Lambda::EventSourceMapping')) {
      const onFailure = m.Properties!.DestinationConfig?.OnFailure?.Destination;
      if (!onFailure) continue;
      const bucket = byId(onFailure['Fn::GetAtt'][0]);
      for (const q of bucket.Properties!.NotificationConfiguration.QueueConfigurations) dlqs.add(q.Queue['Fn::GetAtt'][0]);
    }
    // Asynchronous invocations' dead-letter queues (the SES ingest and IMAP poll functions') and the schedule's.
    for (const [, f] of ofType(real.parent, 'AWS::Lambda::Function')) {
      const target = f.Properties!.DeadLetterConfig?.TargetArn;
      if (target) dlqs.add(target['Fn::GetAtt'][0]);
    }
    for (const [, r] of ofType(real.parent, 'AWS::Events::Rule')) {
      for (const t of r.Properties!.Targets ?? []) if (t.DeadLetterConfig) dlqs.add(t.DeadLetterConfig.Arn['Fn::GetAtt'][0]);
    }
    const mailDlq = logicalId(real.stack.emailIngress.dlq);
    expect(dlqs.has(mailDlq)).toBe(true);
    // events, deliveries, mail, channel-inbound, channel-send, the stream's failure queue, the mail ingress's, and the
    // SLA wake-up function's (Scheduler invokes it asynchronously).
    expect(dlqs.has(logicalId(real.stack.pipeline.slaWakeupDlq))).toBe(true);
    expect(dlqs.size).toBe(8);
    const alarms = ofType(real.parent, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties!);
    for (const dlq of dlqs) {
      const alarm = alarms.find((a) => a.Dimensions?.[0]?.Value?.['Fn::GetAtt']?.[0] === dlq);
      expect(alarm, dlq).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
      });
    }
  });

  it('outputs the replay commands of the stream failures and the dead-lettered deliveries, naming their queues', () => {
    const outputs = real.parent.toJSON().Outputs as Record<string, { Value: unknown }>;
    const stream = JSON.stringify(outputs.ReplayStreamFailuresCommand.Value);
    expect(stream).toContain('npm run replay -- stream-failures --queue-url ');
    expect(stream).toContain(logicalId(real.stack.pipeline.streamFailures));
    const deliveries = JSON.stringify(outputs.ReplayDeliveriesCommand.Value);
    expect(deliveries).toContain('npm run replay -- deliveries --queue-url ');
    expect(deliveries).toContain(logicalId(real.stack.pipeline.deliveriesDlq));
    expect(deliveries).toContain(logicalId(real.stack.pipeline.deliveriesQueue));
  });

  it('reads the stream in bisected, retried, filtered batches with a failure destination', () => {
    const mapping = ofType(real.parent, 'AWS::Lambda::EventSourceMapping').find(([, m]) => m.Properties!.StartingPosition)![1].Properties!;
    expect(mapping).toMatchObject({
      // The local poller reads the same settings (test/unit/local/stream-poller.test.ts).
      StartingPosition: STREAM_SOURCE.startingPosition,
      BatchSize: STREAM_SOURCE.batchSize,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: STREAM_SOURCE.retryAttempts,
      MaximumRecordAgeInSeconds: STREAM_SOURCE.maxRecordAgeSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } } },
    });
    // An S3 destination: Lambda writes the failed record itself (as the invocation's payload), not only its
    // shard position, so a replay does not depend on the stream's 24 hours.
    const bucketId = mapping.DestinationConfig.OnFailure.Destination['Fn::GetAtt'][0];
    const bucket = byId(bucketId);
    expect(bucket.Type).toBe('AWS::S3::Bucket');
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: STREAM_SOURCE.failureDestination.retentionDays, Status: 'Enabled' }] },
      NotificationConfiguration: {
        QueueConfigurations: [{ Event: 's3:ObjectCreated:*', Queue: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } }],
      },
    });
    // Each object is announced on the failure queue, which S3 may send to (the policy exists before the bucket).
    const queueId = bucket.Properties!.NotificationConfiguration.QueueConfigurations[0].Queue['Fn::GetAtt'][0];
    expect(byId(queueId).Type).toBe('AWS::SQS::Queue');
    const [policyId, policy] = ofType(real.parent, 'AWS::SQS::QueuePolicy').find(([, p]) =>
      p.Properties!.Queues.some((q: any) => q.Ref === queueId),
    )!;
    expect(policy.Properties!.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Allow', Principal: { Service: 's3.amazonaws.com' }, Action: 'sqs:SendMessage' }),
    );
    expect((resources(real.parent)[bucketId] as { DependsOn?: string[] }).DependsOn).toContain(policyId);
    // The stream function may write the objects.
    const writes = ofType(real.parent, 'AWS::IAM::Policy').filter(([, p]) =>
      JSON.stringify(p.Properties!.PolicyDocument).includes(bucketId),
    );
    expect(JSON.stringify(writes.map(([, p]) => p.Properties!.PolicyDocument))).toContain('s3:PutObject');
    const patterns = mapping.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns).toHaveLength(2);
    for (const p of patterns) {
      const image = p.dynamodb.NewImage ?? p.dynamodb.OldImage;
      // The event sources, and the audited records (the forwarder's audit stage, docs/audit.md).
      expect(image[TYPE_ATTRIBUTE].S).toEqual(STREAM_SOURCE_TYPES);
    }
    for (const type of [...EVENT_SOURCE_TYPES, ...Object.keys(AUDITED_TYPES)]) expect(STREAM_SOURCE_TYPES).toContain(type);
  });

  it('lets through exactly the types the forwarder would forward', () => {
    const record = (type: string): DynamoDBRecord => ({
      eventID: '1',
      eventName: 'INSERT',
      dynamodb: { Keys: { pk: { S: 'a' }, sk: { S: 'b' } }, NewImage: { pk: { S: 'a' }, sk: { S: 'b' }, [TYPE_ATTRIBUTE]: { S: type } } },
    });
    for (const type of ['sequence', 'unique', 'token', 'permissible', 'conversation_count', 'contact_listing']) {
      expect(changeOf(record(type)), type).toBeUndefined();
    }
    for (const type of EVENT_SOURCE_TYPES) expect(changeOf(record(type)), type).toBeDefined();
  });

  it('consumes each queue with batch item failures and a timeout at most a sixth of its visibility', () => {
    const sqsMappings = ofType(real.parent, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => !m.Properties!.StartingPosition);
    // dispatch, deliver, mail, channel-inbound, channel-send.
    expect(sqsMappings).toHaveLength(5);
    for (const [, m] of sqsMappings) {
      const queue = byId(m.Properties!.EventSourceArn['Fn::GetAtt'][0]);
      const fn = byId(m.Properties!.FunctionName.Ref);
      expect(m.Properties).toMatchObject({ BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] });
      expect(queue.Properties!.VisibilityTimeout).toBeGreaterThanOrEqual(6 * fn.Properties!.Timeout);
    }
    expect(sqsMappings.some(([, m]) => m.Properties!.ScalingConfig?.MaximumConcurrency === 50)).toBe(true);
  });
});

describe('mail (Amazon SES)', () => {
  it('without a sender the mail function sends nothing and may not use SES', () => {
    const fn = resources(real.parent)[logicalId(real.stack.pipeline.mailFunction)];
    expect(fn.Properties!.Environment.Variables).toMatchObject({ MAIL_TRANSPORT: 'none' });
    expect(JSON.stringify(ofType(real.parent, 'AWS::IAM::Policy'))).not.toContain('ses:');
  });

  it('with mailerSenderEmail: SendEmail from that address only, on its identities, granted to the mail and channel-send functions alone', () => {
    const app = new App({ outdir: join(workDir, 'cdk.out.mail'), context });
    const stack = new ServiceStack(app, 'Mail', {
      bundles,
      routes: routes.slice(0, 1),
      mailerSenderEmail: 'Support <help@mail.example.com>',
      frontendUrl: 'https://app.example.com/',
    });
    const t = Template.fromStack(stack);
    const fns = resources(t);
    const mailFn = fns[logicalId(stack.pipeline.mailFunction)];
    expect(mailFn.Properties!.Environment.Variables).toMatchObject({
      MAIL_TRANSPORT: 'ses',
      MAILER_SENDER_EMAIL: 'Support <help@mail.example.com>',
    });
    expect(mailFn.Properties!.Environment.Variables.TABLE_NAME).toBeDefined();
    const dispatch = fns[logicalId(stack.pipeline.dispatchFunction)];
    expect(dispatch.Properties!.Environment.Variables.FRONTEND_URL).toBe('https://app.example.com');
    const sesPolicies = ofType(t, 'AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties!.PolicyDocument).includes('ses:'));
    // The mail function (the service's mails, continuity mails) and channel-send (email inboxes' replies).
    const sendFn = fns[logicalId(stack.pipeline.channelSendFunction)];
    expect(sesPolicies.map(([, p]) => p.Properties!.Roles).sort()).toEqual(
      [[{ Ref: mailFn.Properties!.Role['Fn::GetAtt'][0] }], [{ Ref: sendFn.Properties!.Role['Fn::GetAtt'][0] }]].sort(),
    );
    expect(sendFn.Properties!.Environment.Variables).toMatchObject({
      MAIL_TRANSPORT: 'ses',
      MAILER_SENDER_EMAIL: 'Support <help@mail.example.com>',
    });
    const [, policy] = sesPolicies[0]!;
    const ses = policy.Properties!.PolicyDocument.Statement.filter((st: any) => JSON.stringify(st.Action).includes('ses:'));
    expect(ses).toHaveLength(1);
    expect(ses[0]).toMatchObject({
      Effect: 'Allow',
      Action: 'ses:SendEmail',
      Condition: { StringEquals: { 'ses:FromAddress': 'help@mail.example.com' } },
    });
    const arns = JSON.stringify(ses[0].Resource);
    expect(arns).toContain(':identity/help@mail.example.com');
    expect(arns).toContain(':identity/mail.example.com');
    expect(arns).not.toContain('*');
  });
});

describe('incoming mail (SES receiving, IMAP)', () => {
  it('with an inbound domain: a receipt rule for it stores each mail and invokes the ingest function, which reads only those', () => {
    const app = new App({ outdir: join(workDir, 'cdk.out.inbound'), context });
    const stack = new ServiceStack(app, 'Inbound', { bundles, routes: routes.slice(0, 1), inboundEmail: { domain: 'mail.example.com' } });
    const t = Template.fromStack(stack);
    const [[, rule]] = ofType(t, 'AWS::SES::ReceiptRule');
    expect(rule.Properties!.Rule.Recipients).toEqual(['mail.example.com']);
    const actions = rule.Properties!.Rule.Actions as any[];
    expect(actions.map((a) => Object.keys(a)[0])).toEqual(['S3Action', 'LambdaAction']);
    expect(actions[0].S3Action.ObjectKeyPrefix).toBe('ses/');
    const sesFn = resources(t)[logicalId(stack.emailIngress.sesFunction!)];
    expect(sesFn.Properties!.Environment.Variables).toMatchObject({
      MAILER_INBOUND_EMAIL_DOMAIN: 'mail.example.com',
      SES_MAIL_PREFIX: 'ses/',
    });
    expect(sesFn.Properties!.DeadLetterConfig).toBeDefined();
    // Every function knows the domain (forwarding addresses, reply addresses, the inbox JSON's forwarding_enabled).
    const inboxFn = resources(t)[logicalId(stack.pipeline.dispatchFunction)];
    expect(inboxFn.Properties!.Environment.Variables.MAILER_INBOUND_EMAIL_DOMAIN).toBe('mail.example.com');
  });

  it('the relay password is a generated secret: the relay function gets its ARN (never the password) and may read it', () => {
    const app = new App({ outdir: join(workDir, 'cdk.out.relay'), context });
    const relayRoutes = routes.filter((r) => r.handler === 'functions/channels/email-relay.ts');
    expect(relayRoutes).toHaveLength(1);
    const stack = new ServiceStack(app, 'Relay', { bundles, routes: relayRoutes, inboundEmail: { relay: true } });
    const parent = Template.fromStack(stack);
    const secretId = logicalId(stack.service.relayPassword as any);
    expect(resources(parent)[secretId]).toMatchObject({
      Type: 'AWS::SecretsManager::Secret',
      Properties: { GenerateSecretString: { PasswordLength: 32, ExcludePunctuation: true } },
    });
    expect(JSON.stringify(parent.toJSON().Outputs.MailRelayPasswordSecret.Value)).toContain(secretId);
    const nested = [...stack.api.groups.values()].map((g) => Template.fromStack(g));
    const fns = nested.flatMap((t) => ofType(t, 'AWS::Lambda::Function'));
    const relay = fns.find(([, f]) => f.Properties!.Environment?.Variables?.RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN);
    expect(relay).toBeDefined();
    // No function anywhere holds the password itself.
    for (const t of [parent, ...nested])
      expect(JSON.stringify(ofType(t, 'AWS::Lambda::Function'))).not.toContain('"RAILS_INBOUND_EMAIL_PASSWORD"');
    // The ARN travels into the nested stack as a parameter; the relay's role (the channel webhooks' access class, in
    // the parent) may read that secret (beside the token key it reads already).
    const roleId = logicalId(stack.api.roles.channels);
    const statements = ofType(parent, 'AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties!.Roles).includes(roleId))
      .flatMap(([, p]) => p.Properties!.PolicyDocument.Statement as any[]);
    const reads = statements.filter((st) => [st.Action].flat().includes('secretsmanager:GetSecretValue'));
    expect(reads.flatMap((st) => [st.Resource].flat())).toContainEqual({ Ref: secretId });
    // Without `relay`, no relay secret and no variable.
    expect(real.stack.service.relayPassword).toBeUndefined();
  });

  it('polls IMAP inboxes on a one-minute schedule, with a dead-letter queue for failed runs', () => {
    const [[, rule]] = ofType(real.parent, 'AWS::Events::Rule').filter(([, r]) => r.Properties!.Description === 'Polls the IMAP inboxes');
    expect(rule.Properties!.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule.Properties!.Targets[0].DeadLetterConfig).toBeDefined();
    expect(ofType(real.parent, 'AWS::SES::ReceiptRuleSet')).toHaveLength(0);
  });
});

describe('realtime (/cable)', () => {
  it('serves /cable from Fargate by default: the dispatcher sends to the task queues, the widget config and the output give the distribution URL', () => {
    const fns = resources(real.parent);
    const dispatch = fns[logicalId(real.stack.pipeline.dispatchFunction)];
    const vars = dispatch.Properties!.Environment.Variables;
    expect(vars.CABLE_QUEUE_PREFIX).toBe('Test-');
    expect(vars.CABLE_ENDPOINT).toBeUndefined();
    const roleOf = (f: Record<string, any>) => f.Properties.Role['Fn::GetAtt'][0];
    const sends = ofType(real.parent, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties!.Roles.some((r: any) => r.Ref === roleOf(dispatch)))
      .flatMap(([, p]) => p.Properties!.PolicyDocument.Statement as any[])
      .filter((st) => [st.Action].flat().includes('sqs:SendMessage'));
    expect(sends.map((st) => JSON.stringify(st.Resource))).toContainEqual(expect.stringContaining(':Test-cable-*'));
    expect(ofType(real.parent, 'AWS::ApiGatewayV2::Api').filter(([, a]) => a.Properties!.ProtocolType === 'WEBSOCKET')).toHaveLength(0);
    expect(ofType(real.parent, 'AWS::ECS::Service')).toHaveLength(1);
    expect(ofType(real.parent, 'AWS::ElasticLoadBalancingV2::LoadBalancer')).toHaveLength(1);
    expect(ofType(real.parent, 'AWS::CloudFront::Distribution')).toHaveLength(1);
    expect(real.stack.cable).toBeUndefined();
    const widget = [...real.nested.values()]
      .flatMap((t) => ofType(t, 'AWS::Lambda::Function'))
      .find(([, f]) => f.Properties!.Environment?.Variables?.CABLE_URL);
    expect(widget).toBeDefined();
    const output = real.parent.toJSON().Outputs.CableUrl;
    expect(JSON.stringify(output.Value)).toContain(logicalId(real.stack.service.fargateCable!.distribution));
    expect(JSON.stringify(output.Value)).toContain('/cable');
  });
});

describe('growth', () => {
  it('fits 150 routes: every stack stays under the resource limit', () => {
    // Worst cases at once: one group of 60 rows (half with two methods) and 90 single-row groups.
    const synthetic: Route[] = [
      ...Array.from(
        { length: 60 },
        (_, i): Route => ({
          method: i % 2 ? ['PATCH', 'PUT'] : 'GET',
          path: `/api/v1/accounts/{account_id}/big/${i}`,
          handler: `functions/synthetic/big/action-${i}.ts`,
          api: 'account',
          access: 'write',
        }),
      ),
      ...Array.from(
        { length: 90 },
        (_, i): Route => ({
          method: 'POST',
          path: `/api/v1/accounts/{account_id}/r${i}`,
          handler: `functions/synthetic/r${i}/create.ts`,
          api: 'account',
          access: (['read', 'write', 'tokens', 'uploads'] as const)[i % 4],
        }),
      ),
    ];
    // All synthetic functions share one real bundle: the template does not depend on the code.
    const anyBundle = bundles[functionName(routes[0])];
    const syntheticBundles: FunctionBundles = { ...bundles, ...Object.fromEntries(synthetic.map((r) => [functionName(r), anyBundle])) };
    const big = synth(synthetic, join(workDir, 'cdk.out.150'), syntheticBundles);
    expect(big.nested.size).toBe(91);
    const counts = big.all.map((t) => Object.keys(resources(t)).length);
    expect(Math.max(...counts)).toBeLessThan(CFN_RESOURCE_LIMIT);
    expect([...big.nested.values()].flatMap((t) => ofType(t, 'AWS::ApiGatewayV2::Route'))).toHaveLength(60 + 30 + 90);
  }, 60_000);
});
