import { serveOpenApi } from '#shared/http/openapi.ts';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

// `GET /api/openapi.json`: the service's OpenAPI 3.1 document (openapi.json, written by `npm run docs`).
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  serveOpenApi(event.headers?.['accept-encoding']);
