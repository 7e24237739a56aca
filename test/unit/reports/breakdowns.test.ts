import { describe, expect, it } from 'vitest';
import { zoneLabel } from '#shared/domain/reports/breakdowns.ts';

// conversation_traffic's first line names the zone as ActiveSupport::TimeZone#to_s does for
// TimeZone[timezone_offset]: the first zone (by standard offset, then name) with that standard offset.

describe('conversation_traffic zone label', () => {
  it('is "(GMT±hh:mm) name" of the first Rails zone at that standard offset', () => {
    expect(zoneLabel(5.5)).toBe('(GMT+05:30) Chennai');
    expect(zoneLabel(-5)).toBe('(GMT-05:00) Bogota');
    expect(zoneLabel(5.75)).toBe('(GMT+05:45) Kathmandu');
  });

  it('is empty for an offset no zone has', () => {
    expect(zoneLabel(-11.25)).toBe('');
  });
});
