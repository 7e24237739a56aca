import { providerConfig } from '#shared/config.ts';
import { unprocessable } from '#shared/errors.ts';
import { log } from '#shared/log.ts';

// An OpenAI-compatible chat completion (`POST <endpoint>/v1/chat/completions`), as Chatwoot's Captain calls
// it through RubyLLM: the account's key, the installation's endpoint and model. A failure of the provider is
// the caller's to see (422 with the provider's words), never a 5xx of ours.

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const TIMEOUT_MS = 60_000;

export const llmFailed = (message: string) => unprocessable([{ field: '', message, code: 'llm_failed' }]);

/** The assistant's answer to `messages`. */
export async function complete(apiKey: string, messages: ChatMessage[], maxTokens?: number): Promise<string> {
  const { captainOpenAiEndpoint, captainOpenAiModel } = providerConfig();
  let res: Response;
  try {
    res = await fetch(`${captainOpenAiEndpoint}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: captainOpenAiModel, messages, ...(maxTokens ? { max_tokens: maxTokens } : {}) }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    log.warn('llm request failed', { error });
    throw llmFailed('The language model could not be reached');
  }
  const body = (await res.json().catch(() => ({}))) as { error?: { message?: unknown }; choices?: { message?: { content?: unknown } }[] };
  if (!res.ok) throw llmFailed(typeof body.error?.message === 'string' ? body.error.message : `The language model answered ${res.status}`);
  const content = body.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw llmFailed('The language model gave no answer');
  return content;
}
