import { dispatchChanges } from '../../shared/events/dispatch.ts';

export const handler = dispatchChanges;
