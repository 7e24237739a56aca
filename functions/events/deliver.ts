import { deliverAll } from '../../shared/events/deliver.ts';

export const handler = deliverAll;
