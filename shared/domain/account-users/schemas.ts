import * as v from 'valibot';
import { Id } from '../schemas.ts';

export const NewAccountUserSchema = v.object({
  user_id: Id,
  role: v.optional(v.picklist(['administrator', 'agent'], 'must be administrator or agent'), 'agent'),
});

export const AccountUserRemovalSchema = v.object({ user_id: Id });

export type NewAccountUser = v.InferOutput<typeof NewAccountUserSchema>;
