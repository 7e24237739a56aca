import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { cableSender } from '#shared/realtime/senders.ts';
import { admitFrame, handleFrame } from '#shared/realtime/connections.ts';
import type { WebSocketEvent } from '#shared/realtime/websocket-event.ts';

// $default: every client frame (subscribe, unsubscribe, message). Each is counted against the connection's
// frame limit first (over it: dropped, and the connection closed). Answers go out through PostToConnection,
// like the pipeline's frames; binary frames are not ActionCable and are dropped.
export const handler = async (event: WebSocketEvent): Promise<APIGatewayProxyResultV2> => {
  const sender = cableSender();
  const connectionId = event.requestContext.connectionId;
  if (!(await admitFrame(connectionId))) {
    await sender?.close?.(connectionId);
    return { statusCode: 200 };
  }
  if (sender && !event.isBase64Encoded && typeof event.body === 'string') {
    await handleFrame(connectionId, event.body, sender);
  }
  return { statusCode: 200 };
};
