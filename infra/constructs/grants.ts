import { Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { INDEXES, SLIM_ACTIVITY_INDEX } from '#shared/db/table.ts';

// Grants narrower than CDK's helpers: the table's named indexes instead of `index/*`, and only the S3
// object actions the code calls.

const TABLE_READ = [
  'dynamodb:BatchGetItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:Scan',
];
const TABLE_WRITE = ['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];

/**
 * Table and index data access; `write` adds the write actions (transactions need no action of their own). The slim
 * `gsi3` too: reads fall back to it while an upgrade builds `gsi3w` (docs/deploy.md#upgrading-to-whole-copies-in-gsi3w).
 */
export function grantTableData(table: dynamodb.ITable, grantee: iam.IGrantable, access: 'read' | 'write'): iam.Grant {
  const indexes = [...Object.values(INDEXES).map((index) => index.name), SLIM_ACTIVITY_INDEX.name];
  return iam.Grant.addToPrincipal({
    grantee,
    actions: access === 'write' ? [...TABLE_READ, ...TABLE_WRITE] : TABLE_READ,
    resourceArns: [table.tableArn, ...indexes.map((name) => `${table.tableArn}/index/${name}`)],
  });
}

/** Acknowledges cdk-nag rules on a construct and everything below it, each with the reason it does not apply. */
export function acknowledge(scope: IConstruct, rules: Record<string, string>): void {
  Validations.of(scope).acknowledge(...Object.entries(rules).map(([id, reason]) => ({ id, reason })));
}

/** What every Lambda role of the service is flagged for, and why that is by design. */
export const LAMBDA_ROLE_ACKNOWLEDGMENTS: Record<string, string> = {
  'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]':
    'Only lets the functions write their logs; a role is shared by many functions, each with its own log group',
  'AwsSolutions::AwsSolutions-IAM5[Resource::*]':
    'X-Ray PutTraceSegments/PutTelemetryRecords and DynamoDB ListStreams have no resource-level permissions',
};
