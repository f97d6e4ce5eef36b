// The intent outbox (D336): every intent name, its arguments' type, and its planner, composed from the record
// intents and the administration intents. `planEntry` is what the push calls for one outbox entry.

import type { IdLookup } from '../ids.ts';
import { planAction, type LocalView, type RowChange, type Step } from '../plan.ts';
import { ADMIN_PLANNERS, type AdminIntents } from './admin.ts';
import { RECORD_PLANNERS, type RecordIntents } from './records.ts';
import type { IntentPlanner } from './types.ts';

export type IntentArgsOf = RecordIntents & AdminIntents;
export type IntentName = keyof IntentArgsOf;
/** One intent as the outbox keeps it (JSON). */
export type Intent = { [N in IntentName]: { readonly name: N; readonly args: IntentArgsOf[N] } }[IntentName];

const PLANNERS: { readonly [N in IntentName]: IntentPlanner<IntentArgsOf[N]> } = { ...RECORD_PLANNERS, ...ADMIN_PLANNERS };

export const isIntentName = (name: string): name is IntentName => Object.hasOwn(PLANNERS, name);

/** An outbox entry the push replays: its intents (null on an entry written before them) and its row changes. */
export interface PlannedEntry {
  readonly intents: readonly Intent[] | null;
  readonly changes: readonly RowChange[];
}

/**
 * The requests that replay one outbox entry: each intent's, in order. An entry without intents (written before
 * them, or by adoption of local work on connect, D150) is planned from its row changes, as before (plan.ts).
 * An intent of a name this version does not know cannot come from this version's services: it is an error.
 */
export function planEntry(entry: PlannedEntry, view: LocalView, map: IdLookup): Step[] {
  if (!entry.intents || !entry.intents.length) return planAction(entry.changes, view, map);
  const steps: Step[] = [];
  for (const i of entry.intents as readonly { readonly name: string; readonly args: unknown }[]) {
    if (!isIntentName(i.name)) throw new Error(`outbox intent ${JSON.stringify(i.name)} is not one this version knows`);
    const plan = PLANNERS[i.name] as IntentPlanner<unknown>;
    steps.push(...plan(i.args, entry.changes, view, map));
  }
  return steps;
}
