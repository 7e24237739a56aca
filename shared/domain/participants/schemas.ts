import * as v from 'valibot';
import { Id } from '../schemas.ts';

export const ParticipantsSchema = v.object({ user_ids: v.pipe(v.array(Id, 'must be an array of user ids'), v.maxLength(100)) });
export type Participants = v.InferOutput<typeof ParticipantsSchema>;
