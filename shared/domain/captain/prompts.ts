// The instructions Captain's editor tasks give the model. Our own words for what each of Chatwoot's tasks
// asks (lib/integrations/openai/openai_prompts): the output is only the text the agent will use.

export const TONES = ['professional', 'casual', 'straightforward', 'confident', 'friendly'] as const;
export type Tone = (typeof TONES)[number];
export const REWRITE_OPERATIONS = [...TONES, 'fix_spelling_grammar', 'improve'] as const;
/** What a follow-up may refine: a rewrite, a summary, a reply or a label suggestion. */
export const FOLLOW_UP_EVENTS = [...REWRITE_OPERATIONS, 'summarize', 'reply_suggestion', 'label_suggestion'] as const;

const ONLY_OUTPUT = 'Answer with the resulting text only: no preamble, quotes, tags or explanation.';

export const tonePrompt = (tone: Tone) =>
  `You rewrite a customer support agent's draft reply in a ${tone} tone. Keep its meaning, its facts, its language and any links or placeholders exactly. ${ONLY_OUTPUT}`;

export const FIX_SPELLING_GRAMMAR = `You correct the spelling and grammar of a customer support agent's draft reply. Change nothing else: not the tone, the wording that is already correct, the language or any links. ${ONLY_OUTPUT}`;

export const improvePrompt = (transcript: string) =>
  `You improve a customer support agent's draft reply (the next message) so that it answers the customer clearly and helpfully, in the language of the draft. Use the conversation below for context; do not invent facts, prices or promises that are not in it.

Conversation:
${transcript}

${ONLY_OUTPUT}`;

export const SUMMARY = `You summarise a customer support conversation for the agent who takes it over. Say who the customer is when known, what they asked for, what has been done or promised, and what is still open, in a few short bullet points. Write in the language of the conversation. ${ONLY_OUTPUT}`;

export const replyPrompt = (channel: string, agentName: string, signature: string | null) =>
  `You are ${agentName}, a customer support agent answering on the ${channel} channel. Write the next reply to the customer in the conversation the user gives you, in the customer's language, suited to the channel (short for chat and messaging apps). Do not invent facts, prices, dates or promises that are not in the conversation.${
    signature ? ` End with this signature:\n${signature}` : ''
  } ${ONLY_OUTPUT}`;

export const LABEL_SUGGESTION = `You pick the labels that fit a customer support conversation from the account's labels the user lists after "Labels:". Answer with at most two of those labels, exactly as written, separated by commas, and nothing else; answer with nothing when none fits.`;

const ACTIONS: Record<string, string> = {
  fix_spelling_grammar: 'spelling and grammar correction',
  improve: 'reply improvement',
  summarize: 'conversation summary',
  reply_suggestion: 'reply suggestion',
  label_suggestion: 'label suggestion',
};

export const followUpPrompt = (event: string) =>
  `You just produced a ${(TONES as readonly string[]).includes(event) ? `${event} tone rewrite` : (ACTIONS[event] ?? event)} for a customer support agent. Refine it as the agent asks next, keeping to what they ask. ${ONLY_OUTPUT}`;
