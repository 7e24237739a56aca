import { apiHandler } from '#shared/http/handler.ts';
import { forbidden } from '#shared/errors.ts';
import { yearInReview } from '#shared/domain/reports/breakdowns.ts';

// Chatwoot's YearInReviewsController: the caller's own figures, so any member of the account.
export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => {
    if (actor.type !== 'user') throw forbidden();
    return yearInReview(account, actor.user.id, query);
  },
});
