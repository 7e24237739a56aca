import { forwardChanges } from '../../shared/events/forward.ts';

export const handler = forwardChanges;
