import type { ChannelConfig } from './protocol.ts';

interface WorkingDay {
  day_of_week: number;
  closed_all_day: boolean;
  open_all_day: boolean;
  open_hour: number;
  open_minutes: number;
  close_hour: number;
  close_minutes: number;
}

/** Whether the inbox is within its working hours now (always, when it keeps none). */
export function online(c: ChannelConfig): boolean {
  if (!c.working_hours_enabled) return true;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: c.timezone || 'UTC',
    weekday: 'short',
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(new Date());
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday'));
  const minutes = Number(get('hour')) * 60 + Number(get('minute'));
  const wh = (c.working_hours as WorkingDay[]).find((w) => w.day_of_week === day);
  if (!wh || wh.closed_all_day) return false;
  if (wh.open_all_day) return true;
  return minutes >= wh.open_hour * 60 + wh.open_minutes && minutes < wh.close_hour * 60 + wh.close_minutes;
}
