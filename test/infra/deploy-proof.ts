import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { entryPoints, ROOT } from '../../infra/build.ts';
import { CABLE_FUNCTION_NAMES } from '../../infra/cable.ts';
import { EVENT_FUNCTION_NAMES } from '../../infra/pipeline.ts';
import { functionName, routes } from '../../infra/routes.ts';
import { ServiceStack } from '../../infra/service-stack.ts';
import type { RecordedCall, Recording } from '../../infra/local/recorder.ts';
import type { EnvName } from '#shared/config.ts';

// The deploy proof's two halves: what the synthesized template gives each function (its environment
// variables and its role's statements, nested-stack parameters resolved), and the check of a recording
// of the local runtime (infra/local/recorder.ts) against it.

type Json = any;
type Template = { Resources: Record<string, { Type: string; Properties?: Json }>; Parameters?: Record<string, unknown> };

/** How each environment variable exists deployed. A variable missing here fails the proof (classify it). */
export const DEPLOYED_ENV: Record<EnvName, 'required' | 'default' | 'lambda' | 'local'> = {
  // Set by Lambda itself.
  AWS_REGION: 'lambda',
  // Must be in the function's environment wherever the function reads it.
  TABLE_NAME: 'required',
  EVENTS_QUEUE_URL: 'required',
  DELIVERIES_QUEUE_URL: 'required',
  DELIVERIES_DLQ_URL: 'required',
  AVATAR_BUCKET: 'required',
  PUBLIC_BASE_URL: 'required',
  TOKEN_KEY_SECRET_ARN: 'required',
  SERVICE_NAME: 'required',
  CABLE_ENDPOINT: 'required',
  // The Fargate transport's task-queue prefix (the dispatcher, with cableTransport 'fargate'); absent, the
  // WebSocket API's endpoint or the local sockets. The proof synthesizes the WebSocket API stack, whose
  // functions it runs; test/infra/cable-transport.test.ts checks the Fargate stack's dispatcher.
  CABLE_QUEUE_PREFIX: 'default',
  MAIL_QUEUE_URL: 'required',
  // SLA wake-ups (docs/sla.md#deadlines-on-time): the schedule group, target and role, on the dispatcher and the
  // wake-up function (locally the runtime's timers stand in, and no function reads them).
  SLA_SCHEDULE_GROUP: 'required',
  SLA_WAKEUP_FUNCTION_ARN: 'required',
  SLA_WAKEUP_ROLE_ARN: 'required',
  // The channel queues (docs/channels.md#queues): the ingest functions put webhooks on the inbound one, the
  // dispatcher and the channel consumers the sends on the send one.
  CHANNEL_INBOUND_QUEUE_URL: 'required',
  CHANNEL_SEND_QUEUE_URL: 'required',
  // The providers' real hosts by default (tests and staging point them at fakes); the Meta app secret is the
  // construct's prop (absent: WhatsApp Cloud webhooks are not signature-checked, as Chatwoot).
  WHATSAPP_CLOUD_BASE_URL: 'default',
  DIALOG360_BASE_URL: 'default',
  TWILIO_API_BASE_URL: 'default',
  TWILIO_CONTENT_BASE_URL: 'default',
  BANDWIDTH_API_BASE_URL: 'default',
  FB_APP_SECRET: 'default',
  TELEGRAM_API_BASE_URL: 'default',
  LINE_API_BASE_URL: 'default',
  LINE_DATA_API_BASE_URL: 'default',
  FACEBOOK_GRAPH_BASE_URL: 'default',
  FB_APP_ID: 'default',
  FB_VERIFY_TOKEN: 'default',
  INSTAGRAM_VERIFY_TOKEN: 'default',
  INSTAGRAM_APP_ID: 'default',
  INSTAGRAM_APP_SECRET: 'default',
  INSTAGRAM_GRAPH_BASE_URL: 'default',
  INSTAGRAM_API_BASE_URL: 'default',
  ENABLE_MESSENGER_CHANNEL_HUMAN_AGENT: 'default',
  ENABLE_INSTAGRAM_CHANNEL_HUMAN_AGENT: 'default',
  CHANNEL_SEND_RETRY_BASE_SECONDS: 'default',
  CHANNEL_MEDIA_MAX_BYTES: 'default',
  // `ses` or `none` deployed (the default, `local`, is the local runtime's).
  MAIL_TRANSPORT: 'required',
  // Tuning with a default that is right deployed.
  KEYRING_TTL_SECONDS: 'default',
  MAX_BODY_BYTES: 'default',
  ID_BLOCK_SIZE: 'default',
  LOG_LEVEL: 'default',
  WEBHOOK_TIMEOUT_MS: 'default',
  WEBHOOK_RETRY_BASE_SECONDS: 'default',
  WEBHOOK_MAX_AGE_SECONDS: 'default',
  ALLOW_PRIVATE_WEBHOOK_TARGETS: 'default',
  // The local runtime's (its local receivers); deployed, only public targets.
  ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'local',
  // Derived from PUBLIC_BASE_URL when absent (the custom domain's /cable).
  CABLE_URL: 'default',
  // Google's own endpoints by default; tests point them at local fakes.
  GOOGLE_OAUTH_TOKEN_URL: 'default',
  GOOGLE_TRANSLATE_URL: 'default',
  // OpenAI's endpoint and Chatwoot's default model unless the installation names others.
  CAPTAIN_OPEN_AI_ENDPOINT: 'default',
  CAPTAIN_OPEN_AI_MODEL: 'default',
  // Limits: the construct's `limits` prop sets them; the defaults are the documented ones.
  LIMIT_ACCOUNT_PER_MINUTE: 'default',
  LIMIT_ACCOUNT_BURST: 'default',
  LIMIT_CREDENTIAL_PER_MINUTE: 'default',
  LIMIT_CREDENTIAL_BURST: 'default',
  LIMIT_FILE_PER_MINUTE: 'default',
  LIMIT_FILE_BURST: 'default',
  // A week by default: longer than a webhook receiver's retries.
  FILE_URL_TTL_SECONDS: 'default',
  LIMIT_SYNC_PERCENT: 'default',
  // Mail: the sender from the construct's prop (Chatwoot's default otherwise); links on PUBLIC_BASE_URL unless set.
  MAILER_SENDER_EMAIL: 'default',
  FRONTEND_URL: 'default',
  // Incoming mail: the inbound domain and the relay's password from the construct's props (none: no forwarding
  // addresses, the relay route refuses); the size bound and poll interval have right defaults; the SMTP
  // listener is the local runtime's (deployed, SES receives).
  MAILER_INBOUND_EMAIL_DOMAIN: 'default',
  // The relay's password: in the environment locally, deployed the secret the construct's `relay` gives (none: the
  // route answers 404; the stack test checks the secret's variable and grant on the relay function).
  RAILS_INBOUND_EMAIL_PASSWORD: 'local',
  RAILS_INBOUND_EMAIL_PASSWORD_SECRET_ARN: 'default',
  INBOUND_MAIL_MAX_BYTES: 'default',
  IMAP_POLL_SECONDS: 'default',
  INBOUND_SMTP_PORT: 'local',
  // The SES ingest function's: the mail bucket its receipt rule writes (required there), the prefix by default.
  SES_MAIL_BUCKET: 'default',
  SES_MAIL_PREFIX: 'default',
  // The purge's chunk size (deletes per dispatcher invocation); tests bound it to interrupt a purge.
  PURGE_CHUNK_DELETES: 'default',
  // Rows per chunk of a contacts import; tests bound it to run an import in several chunks.
  CONTACT_IMPORT_CHUNK_ROWS: 'default',
  // How long audit log entries are kept (the stream function's; 90 days by default).
  AUDIT_LOG_RETENTION_DAYS: 'default',
  // Local stand-ins (emulator endpoints, the key in clear): deployed, see IMPLIED.
  DYNAMODB_ENDPOINT: 'local',
  SQS_ENDPOINT: 'local',
  S3_ENDPOINT: 'local',
  TOKEN_KEY: 'local',
  TOKEN_KEY_FILE: 'local',
  SMTP_ADDRESS: 'local',
  SMTP_PORT: 'local',
  SMTP_USERNAME: 'local',
  SMTP_PASSWORD: 'local',
  MAIL_DIR: 'local',
};

/** A read that stands for a deployed variable and call the local runtime does not make. */
const IMPLIED: Record<string, { variable: string; call: RecordedCall }> = {
  // Locally the key is in the environment; deployed it is fetched from the secret.
  TOKEN_KEY: {
    variable: 'TOKEN_KEY_SECRET_ARN',
    call: { client: 'SecretsManagerClient', command: 'GetSecretValueCommand', target: { secret: true } },
  },
  // Locally broadcasts go to the local server's sockets; deployed through the WebSocket API.
  CABLE_ENDPOINT: {
    variable: 'CABLE_ENDPOINT',
    call: { client: 'ApiGatewayManagementApiClient', command: 'PostToConnectionCommand', target: { connection: true } },
  },
};

// ── the template ────────────────────────────────────────────────────────────────────────────────────

/** Fake bundles: the template's roles and environments do not depend on the code. */
function fakeBundles() {
  const dir = join(mkdtempSync(join(tmpdir(), 'proof-')), 'fn');
  mkdirSync(dir);
  writeFileSync(join(dir, 'index.mjs'), 'export const handler = async () => ({});\n');
  const names = [...Object.keys(entryPoints()), ...Object.values(CABLE_FUNCTION_NAMES)];
  return Object.fromEntries(names.map((n) => [n, { dir, bytes: 40 }]));
}

export interface Deployed {
  /** Variables in the function's environment, values resolved to the parent stack's terms. */
  env: Record<string, Json>;
  /** The role's Allow statements, resources rendered (see render). */
  statements: { actions: string[]; resources: string[] }[];
}

export interface Synthesized {
  functions: Map<string, Deployed>;
  /** Logical ids (in the parent stack) of what local identifiers stand for. */
  ids: { table: string; queues: Record<string, string>; bucket: string; secret: string; cableApi: string };
}

const logicalId = (c: IConstruct) => {
  const cfn = (c.node.defaultChild ?? c) as CfnElement;
  return Stack.of(cfn).getLogicalId(cfn);
};

/** Synthesizes the app's stack (fake bundles) and models every function of it. */
export function synthesize(): Synthesized {
  const context = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
  const outdir = mkdtempSync(join(tmpdir(), 'proof-out-'));
  const app = new App({ outdir, context });
  // The WebSocket API transport: its socket functions run in the tour (the Fargate server is no function;
  // test/infra/cable-transport.test.ts checks the dispatcher's grant and variable for it).
  // With an inbound mail domain, so that SES receiving's ingest function exists (the local SMTP listener stands in for it).
  const stack = new ServiceStack(app, 'Proof', {
    bundles: fakeBundles(),
    alarmEmail: 'ops@example.com',
    cableTransport: 'websocket-api',
    inboundEmail: { domain: 'mail.proof.example', relay: true },
  });
  const asm = app.synth();
  const read = (s: Stack): Template => JSON.parse(readFileSync(join(asm.directory, s.templateFile), 'utf8'));
  const parent = read(stack);

  // A nested stack's parameters, as its resource in the parent passes them.
  const paramsOf = new Map<Stack, Record<string, Json>>();
  const templates = new Map<Stack, Template>([[stack, parent]]);
  for (const nested of stack.api.groups.values()) {
    templates.set(nested, read(nested));
    paramsOf.set(nested, parent.Resources[logicalId(nested.nestedStackResource!)].Properties.Parameters);
  }
  const resolve = (v: Json, s: Stack): Json => {
    if (Array.isArray(v)) return v.map((x) => resolve(x, s));
    if (v && typeof v === 'object') {
      if (typeof v.Ref === 'string' && paramsOf.get(s)?.[v.Ref] !== undefined) return paramsOf.get(s)![v.Ref];
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, s)]));
    }
    return v;
  };

  const policiesOf = (roleId: string): { actions: string[]; resources: string[] }[] => {
    const out: { actions: string[]; resources: string[] }[] = [];
    const docs: Json[] = [];
    for (const r of Object.values(parent.Resources)) {
      if (r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: Json) => x.Ref === roleId)) docs.push(r.Properties.PolicyDocument);
    }
    for (const p of parent.Resources[roleId]?.Properties?.Policies ?? []) docs.push(p.PolicyDocument);
    for (const d of docs) {
      for (const st of d.Statement as Json[]) {
        if (st.Effect !== 'Allow') continue;
        out.push({ actions: [st.Action].flat(), resources: [st.Resource].flat().map(render) });
      }
    }
    return out;
  };

  const functions = new Map<string, Deployed>();
  const add = (name: string, fn: IConstruct) => {
    const s = Stack.of(fn);
    const props = templates.get(s)!.Resources[logicalId(fn)].Properties;
    const role = resolve(props.Role, s);
    const roleId = role['Fn::GetAtt']?.[0];
    if (!roleId) throw new Error(`${name}: role ${JSON.stringify(role)} is not a role of the parent stack`);
    const env = resolve(props.Environment?.Variables ?? {}, s);
    functions.set(name, { env, statements: policiesOf(roleId) });
  };
  for (const r of routes) add(functionName(r), stack.api.functions.get(functionName(r))!);
  add(EVENT_FUNCTION_NAMES.stream, stack.pipeline.streamFunction);
  add(EVENT_FUNCTION_NAMES.dispatch, stack.pipeline.dispatchFunction);
  add(EVENT_FUNCTION_NAMES.deliver, stack.pipeline.deliverFunction);
  add(EVENT_FUNCTION_NAMES.slaWakeup, stack.pipeline.slaWakeupFunction);
  add(EVENT_FUNCTION_NAMES.mail, stack.pipeline.mailFunction);
  add(EVENT_FUNCTION_NAMES.channelInbound, stack.pipeline.channelInboundFunction);
  add(EVENT_FUNCTION_NAMES.channelSend, stack.pipeline.channelSendFunction);
  add(EVENT_FUNCTION_NAMES.emailSes, stack.emailIngress.sesFunction!);
  add(EVENT_FUNCTION_NAMES.imapPoll, stack.emailIngress.imapFunction);
  for (const [key, name] of Object.entries(CABLE_FUNCTION_NAMES))
    add(name, stack.cable!.functions[key as keyof typeof CABLE_FUNCTION_NAMES]);

  const p = stack.pipeline;
  return {
    functions,
    ids: {
      table: logicalId(stack.table.table),
      queues: {
        events: logicalId(p.eventsQueue),
        deliveries: logicalId(p.deliveriesQueue),
        eventsDlq: logicalId(p.eventsDlq),
        deliveriesDlq: logicalId(p.deliveriesDlq),
        streamFailures: logicalId(p.streamFailures),
        mail: logicalId(p.mailQueue),
        mailDlq: logicalId(p.mailDlq),
        channelInbound: logicalId(p.channelInboundQueue),
        channelInboundDlq: logicalId(p.channelInboundDlq),
        channelSend: logicalId(p.channelSendQueue),
        channelSendDlq: logicalId(p.channelSendDlq),
      },
      bucket: logicalId(stack.service.avatars),
      secret: logicalId(stack.service.tokenKey),
      cableApi: logicalId(stack.cable!.api),
    },
  };
}

/** A template value as a string pattern: `arn(Id)`, `ref(Id)`, `Id.Attr`; pseudo parameters are `*`. */
export function render(v: Json): string {
  if (typeof v === 'string') return v;
  if (v?.Ref !== undefined) return String(v.Ref).startsWith('AWS::') ? '*' : `ref(${v.Ref})`;
  if (v?.['Fn::GetAtt']) {
    const [id, attr] = v['Fn::GetAtt'];
    return attr === 'Arn' ? `arn(${id})` : `${id}.${attr}`;
  }
  if (v?.['Fn::Join']) {
    const [sep, parts] = v['Fn::Join'];
    return (parts as Json[]).map(render).join(sep);
  }
  return JSON.stringify(v);
}

// ── the check ───────────────────────────────────────────────────────────────────────────────────────

/** What the local runtime's identifiers are. */
export interface LocalNames {
  tableName: string;
  queueUrls: Record<string, string>;
  bucket: string;
}

interface Needed {
  action: string;
  resource: string;
}

const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );

const DDB_ITEM_OPS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};
const SQS_BATCH: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};
const S3_ACTION: Record<string, string> = { HeadObject: 'GetObject', ListObjectsV2: 'ListBucket' };
/** S3 calls authorized on the bucket itself rather than on an object (IAM's ListBucket covers ListObjectsV2). */
const S3_BUCKET_OPS = new Set(['ListObjectsV2']);

/** The IAM actions and resources one recorded call needs; a string when the call's target is unknown. */
export function needs(call: RecordedCall, local: LocalNames, ids: Synthesized['ids']): Needed[] | string {
  const op = call.command.replace(/Command$/, '');
  const t = call.target as Record<string, any>;
  const table = (name: string | undefined) => {
    if (name !== local.tableName) throw new Error(`unknown table ${name}`);
    return `arn(${ids.table})`;
  };
  const queue = (url: string | undefined) => {
    const key = Object.entries(local.queueUrls).find(([, u]) => u === url)?.[0];
    if (!key) throw new Error(`unknown queue ${url}`);
    return `arn(${ids.queues[key]})`;
  };
  try {
    switch (call.client) {
      case 'DynamoDBClient': {
        if (t.TransactItems)
          return (t.TransactItems as { op: string; table: string }[]).map((i) => ({
            action: `dynamodb:${DDB_ITEM_OPS[i.op] ?? i.op}`,
            resource: table(i.table),
          }));
        if (t.RequestItems)
          return (t.RequestItems as { table: string }[]).map((i) => ({ action: `dynamodb:${op}`, resource: table(i.table) }));
        const base = table(t.TableName);
        return [{ action: `dynamodb:${op}`, resource: t.IndexName ? `${base}/index/${t.IndexName}` : base }];
      }
      case 'DynamoDBStreamsClient':
        return [{ action: `dynamodb:${op}`, resource: op === 'ListStreams' ? '*' : `${ids.table}.StreamArn` }];
      case 'SQSClient':
        return [{ action: `sqs:${SQS_BATCH[op] ?? op}`, resource: queue(t.QueueUrl) }];
      case 'S3Client':
        if (t.Bucket !== local.bucket) throw new Error(`unknown bucket ${t.Bucket}`);
        return [
          {
            action: `s3:${S3_ACTION[op] ?? op}`,
            resource: S3_BUCKET_OPS.has(op) ? `arn(${ids.bucket})` : `arn(${ids.bucket})/${t.KeyPrefix ?? ''}some/key`,
          },
        ];
      case 'SecretsManagerClient':
        return [{ action: `secretsmanager:${op}`, resource: `ref(${ids.secret})` }];
      case 'ApiGatewayManagementApiClient':
        return [
          {
            action: 'execute-api:ManageConnections',
            resource: `arn:aws:execute-api:us-east-1:123456789012:ref(${ids.cableApi})/$default/POST/@connections/abc=`,
          },
        ];
      default:
        return `unknown client ${call.client}`;
    }
  } catch (err) {
    return (err as Error).message;
  }
}

const allows = (d: Deployed, n: Needed) =>
  d.statements.some((s) => s.actions.some((a) => glob(a).test(n.action)) && s.resources.some((r) => glob(r).test(n.resource)));

/** What a deployed variable must point at, when it names a resource. */
const POINTS_AT = (ids: Synthesized['ids']): Record<string, string> => ({
  TABLE_NAME: `ref(${ids.table})`,
  EVENTS_QUEUE_URL: `ref(${ids.queues.events})`,
  DELIVERIES_QUEUE_URL: `ref(${ids.queues.deliveries})`,
  DELIVERIES_DLQ_URL: `ref(${ids.queues.deliveriesDlq})`,
  MAIL_QUEUE_URL: `ref(${ids.queues.mail})`,
  AVATAR_BUCKET: `ref(${ids.bucket})`,
  TOKEN_KEY_SECRET_ARN: `ref(${ids.secret})`,
});

const describeCall = (c: RecordedCall) =>
  `${c.client.replace(/Client$/, '')}.${c.command.replace(/Command$/, '')} ${JSON.stringify(c.target)}`;

/** Every recorded call or read the function's deployed role or environment does not allow, as sentences. */
export function findings(recording: Recording, synth: Synthesized, local: LocalNames): string[] {
  const out: string[] = [];
  const points = POINTS_AT(synth.ids);
  for (const [fn, rec] of recording) {
    const d = synth.functions.get(fn);
    if (!d) {
      out.push(`${fn}: recorded, but no such function in the template`);
      continue;
    }
    const calls = [...rec.calls.values()];
    for (const v of rec.variables) {
      const kind = DEPLOYED_ENV[v as keyof typeof DEPLOYED_ENV];
      if (!kind) out.push(`${fn}: reads ${v}, which the proof does not classify (DEPLOYED_ENV)`);
      const implied = IMPLIED[v];
      if (implied) calls.push(implied.call);
      const need = kind === 'required' ? v : implied?.variable;
      if (!need) continue;
      if (!(need in d.env)) out.push(`${fn}: reads ${v}${need !== v ? ` (deployed: ${need})` : ''}, which its environment does not set`);
      else if (points[need] && render(d.env[need]) !== points[need])
        out.push(`${fn}: ${need} is ${render(d.env[need])}, not ${points[need]}`);
    }
    for (const call of calls) {
      const n = needs(call, local, synth.ids);
      if (typeof n === 'string') {
        out.push(`${fn}: ${describeCall(call)}: ${n}`);
        continue;
      }
      for (const x of n)
        if (!allows(d, x)) out.push(`${fn}: ${describeCall(call)} needs ${x.action} on ${x.resource}, which its role does not allow`);
    }
  }
  return [...new Set(out)].sort();
}
