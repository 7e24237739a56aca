// The few parts of `@rails/actioncable` (no types of its own) that test/e2e/realtime/actioncable-client.test.ts uses.
declare module '@rails/actioncable' {
  interface Subscription {
    perform(action: string, data?: Record<string, unknown>): boolean;
    unsubscribe(): void;
  }
  interface Subscriptions {
    create(
      params: Record<string, unknown>,
      mixin: { connected?(): void; disconnected?(): void; rejected?(): void; received?(data: any): void },
    ): Subscription;
  }
  export interface Consumer {
    subscriptions: Subscriptions;
    disconnect(): void;
  }
  export function createConsumer(url: string): Consumer;
}
