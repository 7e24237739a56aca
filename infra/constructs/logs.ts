import { RemovalPolicy } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** A function's own log group with a retention, instead of Lambda's implicit one that keeps logs forever. */
export const functionLogGroup = (scope: Construct, functionName: string) =>
  new logs.LogGroup(scope, `${functionName}-logs`, {
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
