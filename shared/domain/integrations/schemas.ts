import * as v from 'valibot';
import { Id, JsonObject } from '../schemas.ts';

const Status = v.pipe(
  v.union([v.picklist(['enabled', 'disabled', '0', '1']), v.picklist([0, 1]), v.boolean()], 'must be enabled or disabled'),
  v.transform((s): 'enabled' | 'disabled' => (s === 'enabled' || s === '1' || s === 1 || s === true ? 'enabled' : 'disabled')),
);

export const NewHookSchema = v.object({
  app_id: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1), v.maxLength(255)),
  inbox_id: v.optional(v.nullable(Id)),
  status: v.optional(Status),
  settings: v.optional(v.nullable(JsonObject)),
});

export const HookUpdateSchema = v.object({
  status: v.optional(Status),
  settings: v.optional(v.nullable(JsonObject)),
});

export type NewHook = v.InferOutput<typeof NewHookSchema>;
export type HookUpdate = v.InferOutput<typeof HookUpdateSchema>;
