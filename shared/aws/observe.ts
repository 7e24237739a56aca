// The deploy proof's view of the AWS calls the functions make (test/infra/deploy-proof.test.ts): every
// SDK client the service creates goes through `observed`, which adds one middleware that tells the
// registered observer the client, command and input of each call (presigned URLs included: the SDK
// signs them with the function's role). Nothing registers an observer when deployed: the middleware is
// then one undefined check per call.

export interface AwsCall {
  /** The SDK client's name, e.g. `DynamoDBClient`. */
  client: string;
  /** The command's name, e.g. `PutItemCommand` (the low-level one for DynamoDB document commands). */
  command: string;
  input: Record<string, unknown>;
}

let observer: ((call: AwsCall) => void) | undefined;

/** Registers (or, with undefined, removes) the one observer of AWS calls. */
export const observeAwsCalls = (fn: ((call: AwsCall) => void) | undefined): void => {
  observer = fn;
};

interface Stack {
  add(
    mw: (
      next: (args: { input: unknown }) => Promise<unknown>,
      context: { clientName?: string; commandName?: string },
    ) => (args: { input: unknown }) => Promise<unknown>,
    opts: { step: 'initialize'; name: string },
  ): void;
}

export function observed<C extends { middlewareStack: unknown }>(client: C): C {
  (client.middlewareStack as Stack).add(
    (next, context) => async (args) => {
      observer?.({
        client: String(context.clientName),
        command: String(context.commandName),
        input: (args.input ?? {}) as Record<string, unknown>,
      });
      return next(args);
    },
    { step: 'initialize', name: 'observeAwsCalls' },
  );
  return client;
}
