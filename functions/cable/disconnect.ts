import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { closeConnection } from '#shared/realtime/connections.ts';
import type { WebSocketEvent } from '#shared/realtime/websocket-event.ts';

// $disconnect: the connection and its subscriptions go (best effort: API Gateway may skip this call;
// the records expire and PostToConnection's GoneException removes them too).
export const handler = async (event: WebSocketEvent): Promise<APIGatewayProxyResultV2> => {
  await closeConnection(event.requestContext.connectionId);
  return { statusCode: 200 };
};
