import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { widgetAsset } from '#shared/http/widget-assets.ts';

// `GET /widget/assets/{file}`: the chat page's content-hashed script and styles.
export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  widgetAsset(event.pathParameters?.file, event.headers?.['accept-encoding']);
