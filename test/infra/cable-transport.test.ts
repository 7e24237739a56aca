import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/build.ts';
import { CABLE_FUNCTION_NAMES, CABLE_SERVER } from '../../infra/cable.ts';
import { routes } from '../../infra/routes.ts';
import { ServiceStack } from '../../infra/service-stack.ts';
import { testBundles } from './bundles.ts';

// The construct's `cableTransport` prop: 'fargate' (the default) builds the socket server on Fargate behind an
// NLB and CloudFront; 'websocket-api' builds the API Gateway WebSocket API, its functions and the pinger.
// One route keeps the synth small; the whole stack's wiring is in stack.test.ts.

const context = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
let dir: string;

function synth(props: { cableTransport?: 'fargate' | 'websocket-api'; cableTasks?: number } = {}) {
  const app = new App({ outdir: mkdtempSync(join(dir, 'out-')), context });
  const stack = new ServiceStack(app, 'Cable', { bundles: testBundles(), routes: routes.slice(0, 1), ...props });
  return { stack, t: Template.fromStack(stack), asm: app.synth() };
}
const logicalId = (c: { node: { defaultChild?: unknown } }) => {
  const cfn = c.node.defaultChild as never;
  return Stack.of(cfn).getLogicalId(cfn);
};

let fargate: ReturnType<typeof synth>;
let websocket: ReturnType<typeof synth>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cable-transport-'));
  fargate = synth();
  websocket = synth({ cableTransport: 'websocket-api' });
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("cableTransport 'fargate' (the default)", () => {
  it('runs two ARM64 tasks of 0.25 vCPU / 0.5 GB with public IPs in a VPC of two public subnets, no NAT gateway, a DynamoDB endpoint', () => {
    const { t } = fargate;
    t.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Cpu: '256',
      Memory: '512',
      RequiresCompatibilities: ['FARGATE'],
      RuntimePlatform: { CpuArchitecture: 'ARM64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [Match.objectLike({ PortMappings: [Match.objectLike({ ContainerPort: 8080 })] })],
    });
    const [task] = Object.values(t.findResources('AWS::ECS::TaskDefinition')) as any[];
    const env = Object.fromEntries(task.Properties.ContainerDefinitions[0].Environment.map((e: any) => [e.Name, e.Value]));
    expect(Object.keys(env).sort()).toEqual([
      'AWS_REGION',
      'CABLE_QUEUE_PREFIX',
      'LOG_LEVEL',
      'PORT',
      'TABLE_NAME',
      'TOKEN_KEY_SECRET_ARN',
    ]);
    expect(env).toMatchObject({ PORT: '8080', CABLE_QUEUE_PREFIX: 'Cable-', LOG_LEVEL: 'INFO' });
    t.hasResourceProperties('AWS::ECS::Service', {
      DesiredCount: 2,
      LaunchType: 'FARGATE',
      NetworkConfiguration: { AwsvpcConfiguration: Match.objectLike({ AssignPublicIp: 'ENABLED' }) },
    });
    t.resourceCountIs('AWS::EC2::NatGateway', 0);
    t.resourceCountIs('AWS::EC2::Subnet', 2);
    t.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      VpcEndpointType: 'Gateway',
      ServiceName: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith(['.dynamodb'])]) }),
    });
    expect(synth({ cableTasks: 4 }).t.findResources('AWS::ECS::Service', { Properties: { DesiredCount: 4 } })).not.toEqual({});
  });

  it('puts an internet-facing NLB (TCP → 8080, /health checks) behind CloudFront, caching nothing and passing every viewer header', () => {
    const { t } = fargate;
    t.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', { Type: 'network', Scheme: 'internet-facing' });
    t.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Protocol: 'TCP', Port: 80 });
    t.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 8080,
      Protocol: 'TCP',
      TargetType: 'ip',
      HealthCheckPath: '/health',
      HealthCheckProtocol: 'HTTP',
    });
    t.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultCacheBehavior: Match.objectLike({
          CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
          OriginRequestPolicyId: '216adef6-5c7f-47e4-b989-5492eafa07d3', // Managed-AllViewer
          ViewerProtocolPolicy: 'https-only',
          AllowedMethods: Match.arrayWith(['GET', 'POST']),
        }),
        Origins: [Match.objectLike({ CustomOriginConfig: Match.objectLike({ OriginProtocolPolicy: 'http-only' }) })],
      }),
    });
    const out = JSON.stringify(t.toJSON().Outputs.CableUrl.Value);
    expect(out).toContain('wss://');
    expect(out).toContain(logicalId(fargate.stack.service.fargateCable!.distribution));
  });

  it('lets the tasks use the table, read the token key and manage only their own queues; the dispatcher only sends to them', () => {
    const { t, stack } = fargate;
    const json = t.toJSON().Resources as Record<string, any>;
    const taskRole = logicalId(stack.service.fargateCable!.taskDefinition.taskRole as never);
    const statementsOf = (role: string) =>
      Object.values(json)
        .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === role))
        .flatMap((r) => r.Properties.PolicyDocument.Statement as any[]);
    const task = statementsOf(taskRole);
    const sqsTask = task.find((st) => [st.Action].flat().includes('sqs:CreateQueue'));
    expect([sqsTask.Action].flat().sort()).toEqual([
      'sqs:CreateQueue',
      'sqs:DeleteMessage',
      'sqs:DeleteQueue',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
      'sqs:TagQueue',
    ]);
    expect(JSON.stringify(sqsTask.Resource)).toContain(':Cable-cable-*');
    expect(task.some((st) => [st.Action].flat().includes('dynamodb:PutItem'))).toBe(true);
    expect(task.some((st) => [st.Action].flat().includes('secretsmanager:GetSecretValue'))).toBe(true);
    const dispatchRole = json[logicalId(stack.pipeline.dispatchFunction)].Properties.Role['Fn::GetAtt'][0];
    const send = statementsOf(dispatchRole).find((st) => JSON.stringify(st.Resource).includes('cable-*'));
    expect([send.Action].flat().sort()).toEqual(['sqs:GetQueueUrl', 'sqs:SendMessage']);
    expect(JSON.stringify(send.Resource)).toContain(':Cable-cable-*');
    expect(json[logicalId(stack.pipeline.dispatchFunction)].Properties.Environment.Variables.CABLE_QUEUE_PREFIX).toBe('Cable-');
  });

  it('builds the image from the bundle and its Dockerfile (node:22-alpine, arm64), and no WebSocket API or socket function', () => {
    const { t, asm } = fargate;
    const images = Object.values(JSON.parse(readFileSync(join(asm.directory, 'Cable.assets.json'), 'utf8')).dockerImages ?? {}) as any[];
    expect(images).toHaveLength(1);
    expect(images[0].source.platform).toBe('linux/arm64');
    const imageDir = join(asm.directory, images[0].source.directory);
    expect(existsSync(join(imageDir, 'index.mjs'))).toBe(true);
    expect(readFileSync(join(imageDir, 'Dockerfile'), 'utf8')).toMatch(/^FROM node:22-alpine/);
    expect(readFileSync(join(testBundles()[CABLE_SERVER.name].dir, 'index.mjs'), 'utf8')).toContain('/health');
    expect(readFileSync(join(testBundles()[CABLE_SERVER.name].dir, 'Dockerfile'), 'utf8')).toContain('CMD ["node", "/app/index.mjs"]');
    expect(
      Object.values(t.findResources('AWS::ApiGatewayV2::Api')).filter((a: any) => a.Properties.ProtocolType === 'WEBSOCKET'),
    ).toHaveLength(0);
    // No pinger schedule: the only rule is the IMAP poll's.
    const rules = Object.values(t.findResources('AWS::Events::Rule'));
    expect(rules.map((r) => r.Properties.Description)).toEqual(['Polls the IMAP inboxes']);
  });
});

describe("cableTransport 'websocket-api'", () => {
  it('builds the WebSocket API, its four functions and the pinger, and the dispatcher posts to connections', () => {
    const { t, stack } = websocket;
    expect(stack.service.fargateCable).toBeUndefined();
    t.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'WEBSOCKET' });
    t.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: 'cable' });
    t.resourceCountIs('AWS::ECS::Service', 0);
    t.resourceCountIs('AWS::CloudFront::Distribution', 0);
    t.resourceCountIs('AWS::ElasticLoadBalancingV2::LoadBalancer', 0);
    expect(Object.keys(stack.cable!.functions).sort()).toEqual(Object.keys(CABLE_FUNCTION_NAMES).sort());
    const vars = (t.toJSON().Resources as Record<string, any>)[logicalId(stack.pipeline.dispatchFunction)].Properties.Environment.Variables;
    expect(JSON.stringify(vars.CABLE_ENDPOINT)).toContain('/cable');
    expect(vars.CABLE_QUEUE_PREFIX).toBeUndefined();
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'execute-api:ManageConnections' })]) },
    });
  });
});
