import { describe, expect, it } from 'vitest';
import * as keys from '#shared/db/keys.ts';
import { aggregateAdds } from '#shared/db/repositories/report-aggregates.ts';
import {
  FIELDS,
  memberAttr,
  memberBucket,
  memberFoldMark,
  memberGroup,
  memberGroupsOf,
  MEMBER_BUCKETS,
  splitMemberAttr,
} from '#shared/model/report-buckets.ts';

// Grouped report items (docs/reports.md): per family of series, member group and day (or six-hour block), one item
// holding every member's figures, written by the folds from `aggregateAdds` for accounts with `report_groups`.

describe('grouped report items', () => {
  it('names the family and member of every series but the account', () => {
    expect(keys.reportFamilyOf(keys.reportSeries.inbox(12))).toEqual({ family: 'I', member: '12' });
    expect(keys.reportFamilyOf(keys.reportSeries.agent(3))).toEqual({ family: 'G', member: '3' });
    expect(keys.reportFamilyOf(keys.reportSeries.team(4))).toEqual({ family: 'T', member: '4' });
    expect(keys.reportFamilyOf(keys.reportSeries.label('vip-customers'))).toEqual({ family: 'L', member: 'vip-customers' });
    expect(keys.reportFamilyOf(keys.reportSeries.channel('Channel::Api'))).toEqual({ family: 'C', member: 'Channel::Api' });
    expect(keys.reportFamilyOf(keys.reportSeries.account())).toBeUndefined();
  });

  it("puts the summary row's counts, seconds, business seconds, messages and the rest apart", () => {
    expect(memberGroupsOf(['cc', 'fr_n', 'rs_n', 'rt_n'])).toEqual(['a']);
    expect(memberGroupsOf(['fr_s', 'rs_s', 'rt_s'])).toEqual(['s']);
    expect(memberGroupsOf(['fr_b', 'rs_b', 'rt_b'])).toEqual(['b']);
    expect(memberGroupsOf(['im', 'om'])).toEqual(['m']);
    expect(memberGroupsOf(['br', 'bh', 'cs', 'st_open', 'c1', 'fd0', 'li12'])).toEqual(['x']);
    for (const f of FIELDS) expect(['a', 's', 'b', 'm', 'x']).toContain(memberGroup(f));
  });

  it('splits an attribute into member and figure at its last bar, and nothing else', () => {
    expect(splitMemberAttr(memberAttr('Channel::Api', 'st_open_3'))).toEqual({ member: 'Channel::Api', attr: 'st_open_3' });
    expect(splitMemberAttr('fw')).toBeUndefined();
    expect(splitMemberAttr('fw_3')).toBeUndefined();
  });

  it("takes a member's fold mark from the item or its bucket, whichever is later", () => {
    const b = memberBucket('12');
    expect(b).toBeGreaterThanOrEqual(0);
    expect(b).toBeLessThan(MEMBER_BUCKETS);
    expect(memberFoldMark(undefined, '12')).toBeUndefined();
    expect(memberFoldMark({ fw: 'L#2' }, '12')).toBe('L#2');
    expect(memberFoldMark({ fw: 'L#2', [`fw_${b}`]: 'L#3' }, '12')).toBe('L#3');
    expect(memberFoldMark({ fw: 'L#4', [`fw_${b}`]: 'L#3' }, '12')).toBe('L#4');
    expect(memberFoldMark({ [`fw_${(b + 1) % MEMBER_BUCKETS}`]: 'L#3' }, '12')).toBeUndefined();
  });

  it('adds grouped day and block items for accounts with report_groups only, the account series apart', () => {
    const day = Date.UTC(2026, 10, 20) / 1000;
    const contributions = [
      { series: keys.reportSeries.inbox(12), at: day + 21 * 3_600, figures: { cc: 1, om: 2, fr_b: 0 } },
      { series: keys.reportSeries.inbox(13), at: day + 21 * 3_600 + 900, figures: { cc: 1 } },
      { series: keys.reportSeries.account(), at: day, figures: { cc: 2 } },
    ];
    const without = aggregateAdds(7, { contributions }, { blocks: true });
    expect([...without.values()].some((e) => e.kind === 'group')).toBe(false);
    const adds = [...aggregateAdds(7, { contributions }, { blocks: true, groups: true }).values()].filter((e) => e.kind === 'group');
    const byKey = Object.fromEntries(adds.map((e) => [`${e.key.pk} ${e.key.sk}`, Object.fromEntries(e.values)]));
    expect(byKey).toEqual({
      'RPT#7#M#I D#a#20261120': { '12|cc': 1, '13|cc': 1 },
      'RPT#7#M#I D#m#20261120': { '12|om': 2 },
      // 21:00 is quarter 12 of block 3, 21:15 quarter 13.
      'RPT#7#M#I B#a#3#20261120': { '12|cc_12': 1, '13|cc_13': 1 },
      'RPT#7#M#I B#m#3#20261120': { '12|om_12': 2 },
    });
    expect(adds.every((e) => e.series === 'M#I')).toBe(true);
  });
});
