import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { FunctionBundle } from '../bundles.ts';
import { CABLE_STAGE } from '../cable.ts';
import { grantTableData } from './grants.ts';

export interface FargateCableProps {
  table: dynamodb.ITable;
  tokenKey: secretsmanager.ISecret;
  /** The `cable-server` bundle (infra/build.ts), a folder with `index.mjs` and its Dockerfile. */
  bundle: FunctionBundle;
  /** Task queues are named `<queuePrefix>cable-<taskId>`. */
  queuePrefix: string;
  logLevel: string;
  logRetention: logs.RetentionDays;
  /** Tasks (each holds its own connections). @default 2 */
  desiredCount?: number;
  /** @default 256 (0.25 vCPU) */
  cpu?: number;
  /** @default 512 MB */
  memoryLimitMiB?: number;
  removalPolicy?: RemovalPolicy;
}

/** The server's port inside the task, behind the load balancer. */
export const CABLE_SERVER_PORT = 8080;

/**
 * Chatwoot's `/cable` on Fargate (the default transport: cheaper than the WebSocket API at every size the
 * docs/realtime.md#cost-of-idle-connections models): the socket server (infra/cable-server/main.ts) in tasks with public IPs (no NAT
 * gateway)
 * behind a Network Load Balancer, and a CloudFront distribution in front for TLS (`wss://<dist>/cable`).
 * The dispatcher sends frames to each task's own queue.
 */
export class FargateCable extends Construct {
  readonly vpc: ec2.Vpc;
  readonly cluster: ecs.Cluster;
  readonly service: ecs.FargateService;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly loadBalancer: elbv2.NetworkLoadBalancer;
  readonly distribution: cloudfront.Distribution;
  /** `wss://<distribution>/cable`: what clients connect to. */
  readonly url: string;
  readonly queuePrefix: string;
  /** ARN pattern of the task queues. */
  readonly queueArns: string;

  constructor(scope: Construct, id: string, props: FargateCableProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.queuePrefix = props.queuePrefix;
    this.queueArns = stack.formatArn({ service: 'sqs', resource: `${props.queuePrefix}cable-*` });

    // Two public subnets and no NAT gateway: tasks reach SQS, Secrets Manager and ECR over their public
    // IPs; DynamoDB through a (free) gateway endpoint.
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      // No custom-resource function to empty the default security group: nothing uses it (the tasks have their own).
      restrictDefaultSecurityGroup: false,
      subnetConfiguration: [{ name: 'Public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
      gatewayEndpoints: { DynamoDb: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB } },
    });
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc: this.vpc });

    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu ?? 256,
      memoryLimitMiB: props.memoryLimitMiB ?? 512,
      runtimePlatform: { cpuArchitecture: ecs.CpuArchitecture.ARM64, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    });
    this.taskDefinition.addContainer('Server', {
      image: ecs.ContainerImage.fromAsset(props.bundle.dir, { platform: Platform.LINUX_ARM64 }),
      logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: 'cable' }),
      portMappings: [{ containerPort: CABLE_SERVER_PORT, protocol: ecs.Protocol.TCP }],
      environment: {
        PORT: String(CABLE_SERVER_PORT),
        AWS_REGION: stack.region,
        TABLE_NAME: props.table.tableName,
        TOKEN_KEY_SECRET_ARN: props.tokenKey.secretArn,
        CABLE_QUEUE_PREFIX: props.queuePrefix,
        LOG_LEVEL: props.logLevel,
      },
    });
    const role = this.taskDefinition.taskRole;
    grantTableData(props.table, role, 'write');
    props.tokenKey.grantRead(role);
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [
          'sqs:CreateQueue',
          'sqs:TagQueue',
          'sqs:DeleteQueue',
          'sqs:ReceiveMessage',
          'sqs:DeleteMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
        ],
        resources: [this.queueArns],
      }),
    );

    const serviceSg = new ec2.SecurityGroup(this, 'ServiceSecurityGroup', {
      vpc: this.vpc,
      description: 'Socket server tasks: the load balancer only',
      allowAllOutbound: true,
    });
    serviceSg.addIngressRule(ec2.Peer.ipv4(this.vpc.vpcCidrBlock), ec2.Port.tcp(CABLE_SERVER_PORT), 'From the Network Load Balancer');
    this.service = new ecs.FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: props.desiredCount ?? 2,
      assignPublicIp: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
      securityGroups: [serviceSg],
      circuitBreaker: { rollback: true },
      minHealthyPercent: 100,
    });

    this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'Nlb', {
      vpc: this.vpc,
      internetFacing: true,
      vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
    });
    const listener = this.loadBalancer.addListener('Tcp', { port: 80, protocol: elbv2.Protocol.TCP });
    listener.addTargets('Tasks', {
      port: CABLE_SERVER_PORT,
      protocol: elbv2.Protocol.TCP,
      targets: [this.service],
      deregistrationDelay: Duration.seconds(30),
      healthCheck: {
        protocol: elbv2.Protocol.HTTP,
        path: '/health',
        interval: Duration.seconds(10),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 2,
      },
    });

    // TLS at CloudFront (its own certificate): wss://<distribution>/cable; nothing cached, every header passed.
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: "Chatwoot's /cable (ActionCable) on Fargate",
      defaultBehavior: {
        origin: new origins.LoadBalancerV2Origin(this.loadBalancer, {
          protocolPolicy: cloudfront.OriginProtocolPolicy.HTTP_ONLY,
          httpPort: 80,
        }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER,
      },
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
    });
    this.url = `wss://${this.distribution.distributionDomainName}/${CABLE_STAGE}`;
  }

  /** Lets a function send frames (the dispatcher): the queue prefix in its environment, the right to send. */
  allowBroadcast(f: { addEnvironment(k: string, v: string): unknown } & iam.IGrantable): void {
    f.addEnvironment('CABLE_QUEUE_PREFIX', this.queuePrefix);
    iam.Grant.addToPrincipal({ grantee: f, actions: ['sqs:SendMessage', 'sqs:GetQueueUrl'], resourceArns: [this.queueArns] });
  }
}
