import { join } from 'node:path';
import { LOCAL_DEFAULTS } from '../infra/local/runtime.ts';

// The table a maintenance command works on: the local runtime's (`DATA_DIR=DIR npm start`) or a
// deployed one (AWS credentials from the environment). Sets the environment shared/config.ts reads.

export const TARGET_OPTIONS = {
  'data-dir': { type: 'string' },
  'dynamodb-endpoint': { type: 'string' },
  table: { type: 'string' },
  'secret-arn': { type: 'string' },
  region: { type: 'string' },
} as const;

export interface TargetArgs {
  'data-dir'?: string;
  'dynamodb-endpoint'?: string;
  table?: string;
  'secret-arn'?: string;
  region?: string;
}

/** False when neither a data folder nor a deployed table was named. `needsKey`: the command unseals. */
export function useTarget(values: TargetArgs, needsKey: boolean): boolean {
  const local = values['data-dir'];
  if (!local && !(values.table && (!needsKey || values['secret-arn']))) return false;
  delete process.env.TOKEN_KEY;
  Object.assign(process.env, {
    AWS_REGION: values.region ?? process.env.AWS_REGION ?? LOCAL_DEFAULTS.region,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: values.table ?? LOCAL_DEFAULTS.tableName,
    ...(local
      ? {
          TOKEN_KEY_FILE: join(local, 'token.key'),
          DYNAMODB_ENDPOINT: values['dynamodb-endpoint'] ?? `http://127.0.0.1:${LOCAL_DEFAULTS.dynamodbPort}`,
          AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? LOCAL_DEFAULTS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
        }
      : values['secret-arn']
        ? { TOKEN_KEY_SECRET_ARN: values['secret-arn'] }
        : {}),
  });
  return true;
}
