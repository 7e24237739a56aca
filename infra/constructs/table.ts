import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { INDEXES, KEY, SLIM_ACTIVITY_INDEX, TTL_ATTRIBUTE } from '#shared/db/table.ts';

const string = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });

/** The one table, shaped from the same names the runtime and DynamoDB Local use (shared/db/table.ts). */
export interface ServiceTableProps {
  /** @default RETAIN: customer data must survive a stack deletion or a replacement */
  removalPolicy?: RemovalPolicy;
  /** DynamoDB deletion protection (a delete call fails until it is turned off). @default true */
  deletionProtection?: boolean;
  /**
   * Keep the slim activity index `gsi3` that `gsi3w` replaces, for the one deployment that upgrades a stack made
   * before `gsi3w`: CloudFormation adds or removes one index per update, and reads fall back to `gsi3` until
   * `gsi3w` is built (docs/deploy.md#upgrading-to-whole-copies-in-gsi3w). @default false
   */
  slimActivityIndex?: boolean;
}

export class ServiceTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: ServiceTableProps = {}) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: string(KEY.pk),
      sortKey: string(KEY.sk),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      // Both images: the dispatcher needs what changed (status, assignee, labels), not just the new state.
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Customer data: a stack deletion or replacement must never take it along (unless the owner says so).
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      deletionProtection: props.deletionProtection ?? true,
    });
    for (const index of Object.values(INDEXES)) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: string(index.pk),
        sortKey: string(index.sk),
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    if (props.slimActivityIndex) {
      this.table.addGlobalSecondaryIndex({
        indexName: SLIM_ACTIVITY_INDEX.name,
        partitionKey: string(SLIM_ACTIVITY_INDEX.pk),
        sortKey: string(SLIM_ACTIVITY_INDEX.sk),
        projectionType: dynamodb.ProjectionType.INCLUDE,
        nonKeyAttributes: [...SLIM_ACTIVITY_INDEX.include],
      });
    }
  }
}
