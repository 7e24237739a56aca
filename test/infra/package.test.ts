import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/build.ts';
import { buildPackage } from '../../infra/package.ts';
import { routes } from '../../infra/routes.ts';
import { EVENT_FUNCTION_NAMES } from '../../infra/pipeline.ts';

// Another CDK app, in a folder of its own, installs the built package and deploys the construct: its
// node_modules hold only the package and the app's own aws-cdk-lib and constructs (no esbuild, no
// repository), so the package's code, types and function bundles must all come from the package.

const APP = `
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { ChatwootService, type ChatwootServiceProps } from 'chatwoot-serverless';

declare const process: { argv: string[] };
const app = new App({ outdir: process.argv[2] });
const stack = new Stack(app, 'Scratch');
const props: ChatwootServiceProps = {
  alarmEmail: 'ops@example.com',
  runtime: lambda.Runtime.NODEJS_24_X,
  memorySize: 1024,
  corsOrigins: ['https://app.example.com'],
  captain: { endpoint: 'https://llm.example.com', model: 'gpt-4.1-mini' },
  tags: { 'cost-center': 'support' },
};
// @ts-expect-error memory is a number of MB: fails to compile only if the package's types are real
const wrong: ChatwootServiceProps = { memorySize: 'big' };
void wrong;
new ChatwootService(stack, 'Chat', props);
app.synth();
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: [],
  },
  files: ['app.ts'],
};

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;
let dir: string;
let out: string;
let templates: Resources[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'scratch-app-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  await buildPackage(join(modules, 'chatwoot-serverless'), { separately: false });
  const require = createRequire(join(ROOT, 'package.json'));
  for (const dep of ['aws-cdk-lib', 'constructs']) symlinkSync(dirname(require.resolve(`${dep}/package.json`)), join(modules, dep), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  writeFileSync(join(dir, 'app.ts'), APP);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  out = join(dir, 'cdk.out');
  // Node 22 runs the TypeScript app by stripping its types; the package it imports is compiled JS.
  execFileSync(process.execPath, ['app.ts', out], { cwd: dir, stdio: 'pipe', env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  templates = readdirSync(out)
    .filter((f) => f.endsWith('.template.json'))
    .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')).Resources as Resources);
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ofType = (type: string) => templates.flatMap((t) => Object.values(t).filter((r) => r.Type === type));

describe('the published construct, used from another CDK app', () => {
  it('type-checks against the package declarations', () => {
    const typescript = dirname(createRequire(join(ROOT, 'package.json')).resolve('typescript/package.json'));
    const tsc = join(typescript, JSON.parse(readFileSync(join(typescript, 'package.json'), 'utf8')).bin.tsc);
    const run = () => {
      try {
        execFileSync(process.execPath, [tsc, '-p', dir], { cwd: dir, stdio: 'pipe' });
        return '';
      } catch (err) {
        return String((err as { stdout?: Buffer }).stdout ?? err);
      }
    };
    expect(run()).toBe('');
  }, 120_000);

  it("synthesizes every function with the code shipped in the package and the app's settings", () => {
    const fns = ofType('AWS::Lambda::Function');
    // /cable on Fargate by default: no socket functions, one container image of the packaged server bundle.
    // Every pipeline function but SES receiving's, which needs an inbound mail domain (not set here).
    const pipelineFunctions = Object.keys(EVENT_FUNCTION_NAMES).length - 1;
    expect(fns).toHaveLength(routes.length + pipelineFunctions);
    expect(ofType('AWS::ECS::Service')).toHaveLength(1);
    for (const fn of fns) expect(fn.Properties!.Runtime).toBe('nodejs24.x');
    // The socket functions keep sizes of their own; every route and pipeline function takes the prop.
    expect(fns.filter((fn) => fn.Properties!.MemorySize === 1024)).toHaveLength(routes.length + pipelineFunctions);
    // The model of Captain's tasks reaches every route function.
    const captain = fns.filter((fn) => fn.Properties!.Environment?.Variables?.CAPTAIN_OPEN_AI_ENDPOINT === 'https://llm.example.com');
    expect(captain).toHaveLength(routes.length);
    for (const fn of captain) expect(fn.Properties!.Environment.Variables.CAPTAIN_OPEN_AI_MODEL).toBe('gpt-4.1-mini');
    const assets = readdirSync(out).filter((f) => f.startsWith('asset.') && existsSync(join(out, f, 'index.mjs')));
    const images = assets.filter((f) => existsSync(join(out, f, 'Dockerfile')));
    expect(images).toHaveLength(1);
    // One code asset per distinct bundle: functions whose bundles are byte-identical (Twilio's two callbacks) share one.
    const codeAssets = new Set(fns.map((fn) => `asset.${String(fn.Properties!.Code.S3Key).replace(/\.zip$/, '')}`));
    expect(new Set(assets.filter((f) => !images.includes(f)))).toEqual(codeAssets);
  });

  it('notifies the alarm email, tags resources and allows only the given origin', () => {
    expect(ofType('AWS::SNS::Subscription').map((s) => s.Properties)).toEqual([
      expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com' }),
    ]);
    const [table] = ofType('AWS::DynamoDB::Table');
    expect(table.Properties!.Tags).toContainEqual({ Key: 'cost-center', Value: 'support' });
    const [api] = ofType('AWS::ApiGatewayV2::Api');
    expect(api.Properties!.CorsConfiguration.AllowOrigins).toEqual(['https://app.example.com']);
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBeGreaterThan(10);
    for (const alarm of alarms) expect(alarm.Properties!.AlarmActions, alarm.Properties!.AlarmDescription).toHaveLength(1);
  });
});
