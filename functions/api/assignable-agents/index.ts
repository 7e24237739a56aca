import * as v from 'valibot';
import { apiHandler } from '#shared/http/handler.ts';
import { parseOrThrow } from '#shared/validate.ts';
import { assignableAgents } from '#shared/domain/agents/service.ts';
import { Id } from '#shared/domain/schemas.ts';

// `inbox_ids[]=1&inbox_ids[]=2` arrives joined with commas (API Gateway joins repeated keys).
const QuerySchema = v.object({ inbox_ids: v.pipe(v.array(Id), v.minLength(1), v.maxLength(100)) });

export const handler = apiHandler({
  access: 'member',
  run: ({ account, actor, query }) => {
    const raw = [query['inbox_ids[]'], query.inbox_ids].filter((x): x is string => !!x).join(',');
    const { inbox_ids } = parseOrThrow(QuerySchema, { inbox_ids: raw ? raw.split(',').map((s) => s.trim()) : [] });
    return assignableAgents(account, actor, inbox_ids);
  },
});
