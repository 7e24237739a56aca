import * as v from 'valibot';
import { Id, maxJsonBytes, RequiredText } from '../schemas.ts';

// Actions are checked against the automation catalog by the service (one list for rules and macros).

const Visibility = v.picklist(['personal', 'global'], 'must be personal or global');
/** Room for long message actions; the macro item stays far below DynamoDB's 400 KB. */
const MAX_ACTIONS_BYTES = 64 * 1024;
const Actions = v.pipe(
  v.array(v.unknown(), 'must be an array'),
  v.minLength(1, 'must not be empty'),
  maxJsonBytes<unknown[]>(MAX_ACTIONS_BYTES),
);

export const NewMacroSchema = v.object({
  name: RequiredText(255),
  visibility: v.optional(Visibility),
  actions: Actions,
});

export const MacroUpdateSchema = v.object({
  name: v.optional(RequiredText(255)),
  visibility: v.optional(Visibility),
  actions: v.optional(Actions),
});

/** At most this many conversations per execution: the actions run within the request. */
export const MAX_MACRO_CONVERSATIONS = 100;

export const MacroExecutionSchema = v.object({
  conversation_ids: v.pipe(
    v.array(Id, 'must be an array of conversation ids'),
    v.minLength(1, 'must not be empty'),
    v.maxLength(MAX_MACRO_CONVERSATIONS, `may hold at most ${MAX_MACRO_CONVERSATIONS} ids`),
  ),
});

export type NewMacro = v.InferOutput<typeof NewMacroSchema>;
export type MacroUpdate = v.InferOutput<typeof MacroUpdateSchema>;
