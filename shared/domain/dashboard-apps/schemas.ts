import * as v from 'valibot';
import { HttpUrl, RequiredText } from '../schemas.ts';

// Chatwoot's DashboardApp content schema: a list of frames, each an http(s) URL.
const Content = v.pipe(
  v.array(
    v.object({
      type: v.literal('frame', 'must be frame'),
      url: HttpUrl,
    }),
    'must be an array of {type, url}',
  ),
  v.minLength(1, 'must not be empty'),
  v.maxLength(20, 'may hold at most 20 frames'),
);

export const NewDashboardAppSchema = v.object({ title: RequiredText(255), content: Content });
export const DashboardAppUpdateSchema = v.object({ title: v.optional(RequiredText(255)), content: v.optional(Content) });

export type NewDashboardApp = v.InferOutput<typeof NewDashboardAppSchema>;
export type DashboardAppUpdate = v.InferOutput<typeof DashboardAppUpdateSchema>;
