import { startDynamoDbLocal } from '../infra/local/dynamodb-local.ts';

// `npm run bench:scale-dynamodb`: a DynamoDB Local in memory on BENCH_SCALE_DYNAMODB_PORT (8765) that stays until
// stopped (Ctrl-C), for the scale part to load once and measure many times (BENCH_SCALE_DYNAMODB=http://127.0.0.1:8765):
// five times the write rate of one on disk here (3,400 against 630 items a second).

const port = Number(process.env.BENCH_SCALE_DYNAMODB_PORT ?? 8765);
const ddb = await startDynamoDbLocal({ port });
process.stdout.write(`DynamoDB Local in memory: ${ddb.endpoint}\n`);
const stop = () => void ddb.stop().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
await new Promise(() => undefined);
