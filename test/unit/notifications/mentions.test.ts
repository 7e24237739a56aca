import { describe, expect, it } from 'vitest';
import { mentionsOf } from '#shared/domain/notifications/pipeline.ts';

describe("mentionsOf (the dashboard's mention markup in private notes)", () => {
  it('finds user and team mentions once each', () => {
    const content =
      'Hi [@Ann](mention://user/12/Ann) and [@Bob Li](mention://user/7/Bob%20Li), also [@Ops](mention://team/3/Ops) and again [@Ann](mention://user/12/Ann)';
    expect(mentionsOf(content)).toEqual({ users: [12, 7], teams: [3] });
  });

  it('ignores text that only looks like a mention', () => {
    expect(mentionsOf('mention://user/abc/x mention://robot/1/x user/5/ mention://user/9')).toEqual({ users: [], teams: [] });
    expect(mentionsOf(null)).toEqual({ users: [], teams: [] });
  });
});
