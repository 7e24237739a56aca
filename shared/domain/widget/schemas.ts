import * as v from 'valibot';
import { JsonObject } from '../schemas.ts';

// Body of `POST /api/v1/widget/events`. Chatwoot's widget raises `webwidget.triggered` when a visitor
// opens it; no other widget event is announced by this service.

export const WIDGET_EVENTS = ['webwidget.triggered'] as const;

/** Kept on the event's signal item and sent in every webhook: small enough for both. */
const MAX_EVENT_INFO = 16_384;

const EventInfo = v.pipe(
  // JsonObject would take an array (valibot's record turns it into an object of indexes).
  v.unknown(),
  v.check((x) => !Array.isArray(x), 'must be an object'),
  JsonObject,
  v.check((o) => JSON.stringify(o).length <= MAX_EVENT_INFO, `is too long (maximum is ${MAX_EVENT_INFO} characters of JSON)`),
);

export const WidgetEventSchema = v.object({
  name: v.picklist(WIDGET_EVENTS, `must be one of ${WIDGET_EVENTS.join(', ')}`),
  event_info: v.optional(v.nullable(EventInfo)),
});
export type WidgetEvent = v.InferOutput<typeof WidgetEventSchema>;
