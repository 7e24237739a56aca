/** Now, in whole seconds since the epoch: the unit of every `*_at` the table stores. */
export const now = () => Math.floor(Date.now() / 1000);
