import type { Performer } from './messages.ts';

/** Events that change no record: they travel the same stream as item changes, as short-lived items. */
export type SignalName = 'conversation_typing_on' | 'conversation_typing_off' | 'webwidget_triggered' | 'contact_merged';

export interface SignalRecord {
  name: SignalName;
  account_id: number;
  /** The conversation it concerns, when there is one. */
  conversation_id: number | null;
  contact_id: number | null;
  inbox_id: number | null;
  performed_by: Performer | null;
  is_private: boolean;
  /** Anything else the event carries (e.g. webwidget_triggered's event_info). */
  data: Record<string, unknown>;
  created_at: number;
}
