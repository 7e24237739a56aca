import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { cableSender } from '../../shared/events/broadcast.ts';
import { handleFrame } from '../../shared/realtime/cable.ts';
import type { WebSocketEvent } from './event.ts';

// $default: every client frame (subscribe, unsubscribe, message). Answers go out through
// PostToConnection, like the pipeline's frames; binary frames are not ActionCable and are dropped.
export const handler = async (event: WebSocketEvent): Promise<APIGatewayProxyResultV2> => {
  const sender = cableSender();
  if (sender && !event.isBase64Encoded && typeof event.body === 'string') {
    await handleFrame(event.requestContext.connectionId, event.body, sender);
  }
  return { statusCode: 200 };
};
