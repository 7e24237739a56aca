import { zoneOffset as offsetAtSecond } from './business-hours.ts';

/** The zone's offset at instant t (whole seconds: the formatter has no fractions). */
const zoneOffset = (tz: string, t: number) => offsetAtSecond(tz, Math.floor(t));

// The named zone Chatwoot reads a report's `timezone_offset` as (pure, but for the tz data of Node's
// Intl). Chatwoot's TimezoneHelper#timezone_name_from_offset walks ActiveSupport::TimeZone.all — Rails'
// zones sorted by their standard offset, then by name — and takes the first whose offset *now* equals
// the asked one (so DST in force today counts); none (e.g. +14) gives nil, which groupdate reads as
// the application zone, UTC. The series is then grouped by day, week, month and year in that zone,
// DST changes included (groupdate). `railsZone` is ActiveSupport::TimeZone[hours] itself (first zone
// whose standard offset is the one asked, |hours| ≤ 13), which Chatwoot's heatmap CSV uses.

/** ActiveSupport::TimeZone::MAPPING (Rails 7.x): Rails name → tz identifier. */
export const RAILS_ZONES: readonly (readonly [string, string])[] = [
  ['International Date Line West', 'Pacific/Midway'],
  ['Midway Island', 'Pacific/Midway'],
  ['American Samoa', 'Pacific/Pago_Pago'],
  ['Hawaii', 'Pacific/Honolulu'],
  ['Alaska', 'America/Juneau'],
  ['Pacific Time (US & Canada)', 'America/Los_Angeles'],
  ['Tijuana', 'America/Tijuana'],
  ['Mountain Time (US & Canada)', 'America/Denver'],
  ['Arizona', 'America/Phoenix'],
  ['Chihuahua', 'America/Chihuahua'],
  ['Mazatlan', 'America/Mazatlan'],
  ['Central Time (US & Canada)', 'America/Chicago'],
  ['Saskatchewan', 'America/Regina'],
  ['Guadalajara', 'America/Mexico_City'],
  ['Mexico City', 'America/Mexico_City'],
  ['Monterrey', 'America/Monterrey'],
  ['Central America', 'America/Guatemala'],
  ['Eastern Time (US & Canada)', 'America/New_York'],
  ['Indiana (East)', 'America/Indiana/Indianapolis'],
  ['Bogota', 'America/Bogota'],
  ['Lima', 'America/Lima'],
  ['Quito', 'America/Lima'],
  ['Atlantic Time (Canada)', 'America/Halifax'],
  ['Caracas', 'America/Caracas'],
  ['La Paz', 'America/La_Paz'],
  ['Santiago', 'America/Santiago'],
  ['Newfoundland', 'America/St_Johns'],
  ['Brasilia', 'America/Sao_Paulo'],
  ['Buenos Aires', 'America/Argentina/Buenos_Aires'],
  ['Montevideo', 'America/Montevideo'],
  ['Georgetown', 'America/Guyana'],
  ['Puerto Rico', 'America/Puerto_Rico'],
  ['Greenland', 'America/Godthab'],
  ['Mid-Atlantic', 'Atlantic/South_Georgia'],
  ['Azores', 'Atlantic/Azores'],
  ['Cape Verde Is.', 'Atlantic/Cape_Verde'],
  ['Dublin', 'Europe/Dublin'],
  ['Edinburgh', 'Europe/London'],
  ['Lisbon', 'Europe/Lisbon'],
  ['London', 'Europe/London'],
  ['Casablanca', 'Africa/Casablanca'],
  ['Monrovia', 'Africa/Monrovia'],
  ['UTC', 'Etc/UTC'],
  ['Belgrade', 'Europe/Belgrade'],
  ['Bratislava', 'Europe/Bratislava'],
  ['Budapest', 'Europe/Budapest'],
  ['Ljubljana', 'Europe/Ljubljana'],
  ['Prague', 'Europe/Prague'],
  ['Sarajevo', 'Europe/Sarajevo'],
  ['Skopje', 'Europe/Skopje'],
  ['Warsaw', 'Europe/Warsaw'],
  ['Zagreb', 'Europe/Zagreb'],
  ['Brussels', 'Europe/Brussels'],
  ['Copenhagen', 'Europe/Copenhagen'],
  ['Madrid', 'Europe/Madrid'],
  ['Paris', 'Europe/Paris'],
  ['Amsterdam', 'Europe/Amsterdam'],
  ['Berlin', 'Europe/Berlin'],
  ['Bern', 'Europe/Zurich'],
  ['Zurich', 'Europe/Zurich'],
  ['Rome', 'Europe/Rome'],
  ['Stockholm', 'Europe/Stockholm'],
  ['Vienna', 'Europe/Vienna'],
  ['West Central Africa', 'Africa/Algiers'],
  ['Bucharest', 'Europe/Bucharest'],
  ['Cairo', 'Africa/Cairo'],
  ['Helsinki', 'Europe/Helsinki'],
  ['Kyiv', 'Europe/Kiev'],
  ['Riga', 'Europe/Riga'],
  ['Sofia', 'Europe/Sofia'],
  ['Tallinn', 'Europe/Tallinn'],
  ['Vilnius', 'Europe/Vilnius'],
  ['Athens', 'Europe/Athens'],
  ['Istanbul', 'Europe/Istanbul'],
  ['Minsk', 'Europe/Minsk'],
  ['Jerusalem', 'Asia/Jerusalem'],
  ['Harare', 'Africa/Harare'],
  ['Pretoria', 'Africa/Johannesburg'],
  ['Kaliningrad', 'Europe/Kaliningrad'],
  ['Moscow', 'Europe/Moscow'],
  ['St. Petersburg', 'Europe/Moscow'],
  ['Volgograd', 'Europe/Volgograd'],
  ['Samara', 'Europe/Samara'],
  ['Kuwait', 'Asia/Kuwait'],
  ['Riyadh', 'Asia/Riyadh'],
  ['Nairobi', 'Africa/Nairobi'],
  ['Baghdad', 'Asia/Baghdad'],
  ['Tehran', 'Asia/Tehran'],
  ['Abu Dhabi', 'Asia/Muscat'],
  ['Muscat', 'Asia/Muscat'],
  ['Baku', 'Asia/Baku'],
  ['Tbilisi', 'Asia/Tbilisi'],
  ['Yerevan', 'Asia/Yerevan'],
  ['Kabul', 'Asia/Kabul'],
  ['Ekaterinburg', 'Asia/Yekaterinburg'],
  ['Islamabad', 'Asia/Karachi'],
  ['Karachi', 'Asia/Karachi'],
  ['Tashkent', 'Asia/Tashkent'],
  ['Chennai', 'Asia/Kolkata'],
  ['Kolkata', 'Asia/Kolkata'],
  ['Mumbai', 'Asia/Kolkata'],
  ['New Delhi', 'Asia/Kolkata'],
  ['Kathmandu', 'Asia/Kathmandu'],
  ['Astana', 'Asia/Dhaka'],
  ['Dhaka', 'Asia/Dhaka'],
  ['Sri Jayawardenepura', 'Asia/Colombo'],
  ['Almaty', 'Asia/Almaty'],
  ['Novosibirsk', 'Asia/Novosibirsk'],
  ['Rangoon', 'Asia/Rangoon'],
  ['Bangkok', 'Asia/Bangkok'],
  ['Hanoi', 'Asia/Bangkok'],
  ['Jakarta', 'Asia/Jakarta'],
  ['Krasnoyarsk', 'Asia/Krasnoyarsk'],
  ['Beijing', 'Asia/Shanghai'],
  ['Chongqing', 'Asia/Chongqing'],
  ['Hong Kong', 'Asia/Hong_Kong'],
  ['Urumqi', 'Asia/Urumqi'],
  ['Kuala Lumpur', 'Asia/Kuala_Lumpur'],
  ['Singapore', 'Asia/Singapore'],
  ['Taipei', 'Asia/Taipei'],
  ['Perth', 'Australia/Perth'],
  ['Irkutsk', 'Asia/Irkutsk'],
  ['Ulaanbaatar', 'Asia/Ulaanbaatar'],
  ['Seoul', 'Asia/Seoul'],
  ['Osaka', 'Asia/Tokyo'],
  ['Sapporo', 'Asia/Tokyo'],
  ['Tokyo', 'Asia/Tokyo'],
  ['Yakutsk', 'Asia/Yakutsk'],
  ['Darwin', 'Australia/Darwin'],
  ['Adelaide', 'Australia/Adelaide'],
  ['Canberra', 'Australia/Melbourne'],
  ['Melbourne', 'Australia/Melbourne'],
  ['Sydney', 'Australia/Sydney'],
  ['Brisbane', 'Australia/Brisbane'],
  ['Hobart', 'Australia/Hobart'],
  ['Vladivostok', 'Asia/Vladivostok'],
  ['Guam', 'Pacific/Guam'],
  ['Port Moresby', 'Pacific/Port_Moresby'],
  ['Magadan', 'Asia/Magadan'],
  ['Srednekolymsk', 'Asia/Srednekolymsk'],
  ['Solomon Is.', 'Pacific/Guadalcanal'],
  ['New Caledonia', 'Pacific/Noumea'],
  ['Fiji', 'Pacific/Fiji'],
  ['Kamchatka', 'Asia/Kamchatka'],
  ['Marshall Is.', 'Pacific/Majuro'],
  ['Auckland', 'Pacific/Auckland'],
  ['Wellington', 'Pacific/Auckland'],
  ["Nuku'alofa", 'Pacific/Tongatapu'],
  ['Tokelau Is.', 'Pacific/Fakaofo'],
  ['Chatham Is.', 'Pacific/Chatham'],
  ['Samoa', 'Pacific/Apia'],
];

/** A named zone: `offsetAt(t)` is its offset from UTC (seconds) at instant t. */
export interface TimeZone {
  /** Rails name ("Eastern Time (US & Canada)"), or "UTC". */
  name: string;
  tz: string;
  offsetAt(t: number): number;
}

const zone = (name: string, tz: string): TimeZone => ({ name, tz, offsetAt: (t) => zoneOffset(tz, t) });
export const UTC_ZONE: TimeZone = { name: 'UTC', tz: 'Etc/UTC', offsetAt: () => 0 };

const WEEK = 7 * 86_400;

/**
 * A zone's standard offset around `now` (tzinfo's base_utc_offset): the lowest offset it has in the year
 * around now, sampled weekly (DST only ever adds; tzinfo-data compiles tzdata's rearguard form, where
 * Dublin's winter time and Morocco's Ramadan time are its standard time).
 */
function standardOffset(tz: string, now: number): number {
  let min = Infinity;
  for (let t = now - 26 * WEEK; t <= now + 26 * WEEK; t += WEEK) min = Math.min(min, zoneOffset(tz, t));
  return min;
}

let sorted: { day: number; zones: { name: string; tz: string; base: number }[] } | undefined;

/** ActiveSupport::TimeZone.all as of `now`: by standard offset, then name (kept for the UTC day). */
export function railsZonesSorted(now: number) {
  const day = Math.floor(now / 86_400);
  if (sorted?.day !== day) {
    const bases = new Map<string, number>();
    const zones = RAILS_ZONES.map(([name, tz]) => {
      if (!bases.has(tz)) bases.set(tz, standardOffset(tz, now));
      return { name, tz, base: bases.get(tz)! };
    });
    zones.sort((a, b) => a.base - b.base || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    sorted = { day, zones };
  }
  return sorted.zones;
}

/** Chatwoot's timezone_name_from_offset: the first zone of `all` whose offset now is `offset` (seconds); else UTC. */
export function zoneForOffset(offset: number, now = Date.now() / 1000): TimeZone {
  // Only the zones at that offset now compete, so only their standard offsets are worked out.
  const candidates = RAILS_ZONES.filter(([, tz]) => zoneOffset(tz, now) === offset).map(([name, tz]) => ({
    name,
    tz,
    base: standardOffset(tz, now),
  }));
  candidates.sort((a, b) => a.base - b.base || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found = candidates[0];
  return found ? zone(found.name, found.tz) : UTC_ZONE;
}

/** ActiveSupport::TimeZone[hours]: the first zone of `all` whose standard offset is `hours` (|hours| ≤ 13, else seconds). */
export function railsZone(hours: number, now = Date.now() / 1000): TimeZone | undefined {
  const seconds = Math.abs(hours) <= 13 ? hours * 3_600 : hours;
  const found = railsZonesSorted(now).find((z) => z.base === Math.trunc(seconds));
  return found ? zone(found.name, found.tz) : undefined;
}
