import { Stack, type StackProps } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type { Construct } from 'constructs';
import { ChatwootService, type ChatwootServiceProps } from './constructs/chatwoot-service.ts';

export interface ServiceStackProps extends Omit<StackProps, 'tags'>, ChatwootServiceProps {
  /** Custom domain by name and certificate ARN (the app's context values); `domain` takes objects. */
  domainName?: string;
  certificateArn?: string;
}

/** The app's one stack: the ChatwootService construct and nothing else (other CDK apps use the construct). */
export class ServiceStack extends Stack {
  readonly service: ChatwootService;

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    // Tags go on the construct (every resource of the service), not the stack.
    super(scope, id, { description: 'Chatwoot-compatible serverless messaging API', ...props, tags: undefined });
    if (props.domainName && !props.certificateArn)
      throw new Error('domainName needs certificateArn (an ACM certificate in the stack region)');
    const domain =
      props.domain ??
      (props.domainName && props.certificateArn
        ? { domainName: props.domainName, certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn) }
        : undefined);
    // The id `Default` is left out of logical ids, so they stay those of the resources made before the
    // construct existed: an upgrade updates the table in place instead of replacing it.
    this.service = new ChatwootService(this, 'Default', { ...props, domain });
  }

  get table() {
    return this.service.table;
  }
  get api() {
    return this.service.api;
  }
  get pipeline() {
    return this.service.pipeline;
  }
  get cable() {
    return this.service.cable;
  }
  get emailIngress() {
    return this.service.emailIngress;
  }
}
