// The package's public entry: what another CDK app imports.
//   import { ChatwootService } from 'chatwoot-serverless';
export { ChatwootService, type ChatwootServiceProps, type CustomDomainProps, type LogLevel } from './constructs/chatwoot-service.ts';
export { EventPipeline, type EventPipelineProps } from './constructs/event-pipeline.ts';
export { HttpApiRoutes, type HttpApiRoutesProps, type CaptainModel, type RequestLimits, ACCESS_LOG_FIELDS } from './constructs/http-api.ts';
export { Observability, type ObservabilityProps } from './constructs/observability.ts';
export { ServiceTable, type ServiceTableProps } from './constructs/table.ts';
export { SUPPORTED_RUNTIMES } from './constructs/logs.ts';
export { bundlesIn, PACKAGED_BUNDLES_DIR, type FunctionBundle, type FunctionBundles } from './bundles.ts';
export { routes, functionName, type Route, type AccessClass, type Interface, type Method } from './routes.ts';
export { METRIC_NAMES, METRICS_NAMESPACE } from '#shared/metric-names.ts';
