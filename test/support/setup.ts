import { setDefaultResolver } from '#shared/outbound/address-guard.ts';
import { loopbackOnlyResolver } from './resolver.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.LOG_LEVEL ??= 'ERROR';
process.env.WEBHOOK_RETRY_BASE_SECONDS ??= '1';
// Request limits far above what any test sends; the limits test lowers them for its own requests.
process.env.LIMIT_ACCOUNT_PER_MINUTE ??= '1000000';
process.env.LIMIT_ACCOUNT_BURST ??= '100000';
process.env.LIMIT_CREDENTIAL_PER_MINUTE ??= '1000000';
process.env.LIMIT_CREDENTIAL_BURST ??= '100000';
process.env.LIMIT_FILE_PER_MINUTE ??= '1000000';
process.env.LIMIT_FILE_BURST ??= '100000';
// No DNS query leaves the machine: deliveries to the example.com webhooks tests create fail at once, and
// hold no libuv thread that a lookup of localhost would wait behind.
setDefaultResolver(loopbackOnlyResolver);
