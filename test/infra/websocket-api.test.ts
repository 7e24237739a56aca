import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CABLE_FUNCTION_NAMES, CABLE_STAGE } from '../../infra/cable.ts';
import { WebSocketApi } from '../../infra/constructs/websocket-api.ts';

// The deployed /cable: template assertions on the construct alone (the full stack's wiring is checked
// in stack.test.ts).

let dir: string;
let template: Template;
let construct: WebSocketApi;
let stack: Stack;

function synth(props: { pingerShards?: number } = {}) {
  const app = new App();
  const s = new Stack(app, 'T');
  const table = new dynamodb.Table(s, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
  const bundle = { dir, bytes: 1 };
  const bundles = Object.fromEntries(Object.values(CABLE_FUNCTION_NAMES).map((n) => [n, bundle]));
  const c = new WebSocketApi(s, 'Cable', { table, bundles, logLevel: 'INFO', ...props });
  return { s, c, t: Template.fromStack(s) };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cable-construct-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.mjs'), 'export const handler = async () => ({ statusCode: 200 });');
  ({ s: stack, c: construct, t: template } = synth());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fnLogicalId = (key: keyof typeof CABLE_FUNCTION_NAMES) => stack.getLogicalId(construct.functions[key].node.defaultChild as never);

describe('WebSocket API', () => {
  it('is a WebSocket API routing on $request.body.action with $connect, $disconnect and $default to their functions', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'WEBSOCKET',
      RouteSelectionExpression: '$request.body.action',
    });
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    expect(
      Object.values(routes)
        .map((r) => r.Properties.RouteKey)
        .sort(),
    ).toEqual(['$connect', '$default', '$disconnect']);
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(3);
    for (const key of ['connect', 'disconnect', 'default'] as const) {
      expect(
        integrations.some(
          (i) => JSON.stringify(i.Properties.IntegrationUri).includes(fnLogicalId(key)) && i.Properties.IntegrationType === 'AWS_PROXY',
        ),
        key,
      ).toBe(true);
    }
  });

  it('serves at the stage `cable`, auto-deployed and throttled, so the socket is wss://<host>/cable', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: CABLE_STAGE,
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
    });
    const url = stack.resolve(construct.url)['Fn::Join'][1] as unknown[];
    expect(url[0]).toBe('wss://');
    expect(url.at(-1)).toBe(`/${CABLE_STAGE}`);
  });

  it('lets only $default and the pinger post to connections, with the management endpoint in their environment', () => {
    const fns = template.findResources('AWS::Lambda::Function');
    for (const key of ['default', 'ping'] as const) {
      const env = fns[fnLogicalId(key)].Properties.Environment.Variables;
      expect(JSON.stringify(env.CABLE_ENDPOINT)).toContain(CABLE_STAGE);
      expect(env.TABLE_NAME).toBeDefined();
    }
    for (const key of ['connect', 'disconnect'] as const)
      expect(fns[fnLogicalId(key)].Properties.Environment.Variables.CABLE_ENDPOINT).toBeUndefined();
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const manage = policies.filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes('execute-api:ManageConnections'));
    const roles = manage.flatMap((p) => p.Properties.Roles.map((r: any) => r.Ref));
    expect(roles).toHaveLength(2);
    for (const key of ['default', 'ping'] as const) {
      const role = fns[fnLogicalId(key)].Properties.Role['Fn::GetAtt'][0];
      expect(roles).toContain(role);
    }
  });

  it('runs the pinger every minute for just under a minute, with a timeout that lets it finish', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnLogicalId('ping'), 'Arn'] }, Input: JSON.stringify({ shard: 0, shards: 1 }) })],
    });
    const ping = template.findResources('AWS::Lambda::Function')[fnLogicalId('ping')];
    expect(ping.Properties.Timeout).toBeGreaterThan(60);
    expect(ping.Properties.Timeout).toBeLessThan(120);
  });

  it('splits the pinger into shards, one schedule each', () => {
    const { t } = synth({ pingerShards: 7 });
    const rules = Object.values(t.findResources('AWS::Events::Rule'));
    expect(rules).toHaveLength(7);
    const inputs = rules.map((r) => JSON.parse(r.Properties.Targets[0].Input)).sort((a, b) => a.shard - b.shard);
    expect(inputs).toEqual(Array.from({ length: 7 }, (_, shard) => ({ shard, shards: 7 })));
  });

  it('gives every socket function its own log group, nodejs22.x on arm64, and the table', () => {
    const fns = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(fns)).toHaveLength(4);
    for (const fn of Object.values(fns)) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler' });
      expect(fn.Properties.LoggingConfig.LogGroup.Ref).toBeDefined();
    }
  });
});
