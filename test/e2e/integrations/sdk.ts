import sdkModule from '@figuro/chatwoot-sdk';

// The package is CommonJS with an `exports.default` class: under Node's ESM interop the default import is
// the exports object, under a bundler's interop the class itself.
type ChatwootClient = InstanceType<typeof sdkModule.default>;
const ChatwootClientClass: typeof sdkModule.default =
  (sdkModule as unknown as { default?: typeof sdkModule.default }).default ?? (sdkModule as unknown as typeof sdkModule.default);

/** The published TypeScript SDK as an integration would construct it (axios, `api_access_token` + Bearer). */
export function sdk(baseUrl: string, token: string): ChatwootClient {
  return new ChatwootClientClass({ config: { basePath: baseUrl, with_credentials: false, credentials: 'omit', token } });
}

/** The status and body of an SDK call that failed (its ApiError). */
export async function sdkError(p: Promise<unknown>): Promise<{ status: number; body: any }> {
  try {
    await p;
  } catch (err) {
    const e = err as { status?: number; body?: unknown };
    if (typeof e.status === 'number') return { status: e.status, body: e.body };
    throw err;
  }
  throw new Error('expected the SDK call to fail');
}
