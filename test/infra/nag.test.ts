import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack, Validations } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/build.ts';
import { ServiceStack, type ServiceStackProps } from '../../infra/service-stack.ts';
import { testBundles } from './bundles.ts';

// cdk-nag's AwsSolutions and Serverless packs over the whole stack: no finding may be left unacknowledged,
// and every acknowledgment carries its reason in the code next to the resource.

const context = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
let dir: string;

interface Report {
  pluginReports: { pluginName: string; violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
}

/** Synthesizes with both packs; the findings left, as "rule at path". */
function findings(props: ServiceStackProps, extra?: (stack: Stack) => void): string[] {
  const outdir = mkdtempSync(join(dir, 'out-'));
  const app = new App({ outdir, context });
  const stack = new ServiceStack(app, 'Nag', { bundles: testBundles(), ...props });
  extra?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  try {
    app.synth();
    return [];
  } catch (err) {
    if (!existsSync(join(outdir, 'validation-report.json'))) throw err;
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8')) as Report;
    return report.pluginReports.flatMap((p) =>
      p.violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.ruleName} at ${c.constructPath}`)),
    );
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nag-'));
  testBundles();
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('cdk-nag (AwsSolutions and Serverless)', () => {
  it('finds nothing unacknowledged in the stack as deployed by default, with an alarm email', () => {
    expect(findings({ alarmEmail: 'ops@example.com' })).toEqual([]);
  }, 180_000);

  it("finds nothing unacknowledged with cableTransport 'websocket-api' either", () => {
    expect(findings({ alarmEmail: 'ops@example.com', cableTransport: 'websocket-api' })).toEqual([]);
  }, 180_000);

  it('finds nothing on the newest runtime either, and still reports a real finding', () => {
    const left = findings({ runtime: lambda.Runtime.NODEJS_24_X }, (stack) => {
      new s3.Bucket(stack, 'Careless');
    });
    expect(left.length).toBeGreaterThan(0);
    expect(
      left.every((f) => f.includes('/Careless/')),
      left.join('\n'),
    ).toBe(true);
    expect(left).toContain('AwsSolutions-S1 at Nag/Careless/Resource');
  }, 180_000);

  it('gives every acknowledgment a reason', () => {
    const app = new App({ context, outdir: mkdtempSync(join(dir, 'out-')) });
    const stack = new ServiceStack(app, 'Nag', { bundles: testBundles(), alarmEmail: 'ops@example.com' });
    const acks = stack.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
      .flatMap((m) => Object.entries(m.data as Record<string, string>));
    expect(acks.length).toBeGreaterThan(0);
    for (const [id, reason] of acks) expect(reason.length, id).toBeGreaterThan(30);
  }, 180_000);
});
