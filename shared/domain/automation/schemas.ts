import * as v from 'valibot';
import { Bool, maxJsonBytes, RequiredText, Text } from '../schemas.ts';
import { AUTOMATION_EVENTS } from '#shared/model/automation.ts';

// The shapes here; what conditions and actions may say is checked against the catalog by the service,
// which knows the rule's event also on updates that do not send it.

const EventName = v.picklist(AUTOMATION_EVENTS, `must be one of ${AUTOMATION_EVENTS.join(', ')}`);
/** Room for long message actions; the rule item stays far below DynamoDB's 400 KB. */
const MAX_ENTRIES_BYTES = 64 * 1024;
const Entries = v.pipe(v.array(v.unknown(), 'must be an array'), v.minLength(1), maxJsonBytes<unknown[]>(MAX_ENTRIES_BYTES));

const fields = {
  description: v.optional(v.nullable(Text(20000))),
  active: v.optional(Bool),
};

export const NewAutomationRuleSchema = v.object({
  name: RequiredText(255),
  event_name: EventName,
  conditions: Entries,
  actions: Entries,
  ...fields,
});

export const AutomationRuleUpdateSchema = v.object({
  name: v.optional(RequiredText(255)),
  event_name: v.optional(EventName),
  conditions: v.optional(Entries),
  actions: v.optional(Entries),
  ...fields,
});

export type NewAutomationRule = v.InferOutput<typeof NewAutomationRuleSchema>;
export type AutomationRuleUpdate = v.InferOutput<typeof AutomationRuleUpdateSchema>;
