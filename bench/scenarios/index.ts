import { accountInterface1 } from './account-interface-1.ts';
import { accountInterface2 } from './account-interface-2.ts';
import { agentApps } from './agent-apps.ts';
import { channels } from './channels.ts';
import { csat } from './csat.ts';
import { contactRecords } from './contact-records.ts';
import { foundation } from './foundation.ts';
import { helpCenterScenarios } from './help-center.ts';
import { integrations } from './integrations.ts';
import { publicInterface } from './public.ts';
import { reports } from './reports.ts';
import { sla } from './sla.ts';
import type { Scenarios } from './types.ts';
import { widget } from './widget.ts';

/** Every route's scenario, keyed by route key: the bench (bench/run.ts) and the deploy proof's tour use this one list. */
export const scenarios: Scenarios = {
  ...foundation,
  ...accountInterface1,
  ...accountInterface2,
  ...publicInterface,
  ...widget,
  ...integrations,
  ...agentApps,
  ...reports,
  ...channels,
  ...helpCenterScenarios,
  ...csat,
  ...contactRecords,
  ...sla,
};
