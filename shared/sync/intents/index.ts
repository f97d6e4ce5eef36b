// The intent outbox (D336): every intent name, its arguments' type, and its planner, composed from the record
// intents and the administration intents. `planEntry` is what the push calls for one outbox entry.

import type { IdLookup } from '../ids.ts';
import { planAction, type LocalView, type RowChange, type Step } from '../plan.ts';
import { ADMIN_PLANNERS, type AdminIntents } from './admin.ts';
import { RECORD_PLANNERS, validRecordArgs, type RecordIntents } from './records.ts';
import type { IntentPlanner } from './types.ts';

export type IntentArgsOf = RecordIntents & AdminIntents;
export type IntentName = keyof IntentArgsOf;
/** One intent as the outbox keeps it (JSON). */
export type Intent = { [N in IntentName]: { readonly name: N; readonly args: IntentArgsOf[N] } }[IntentName];

const PLANNERS: { readonly [N in IntentName]: IntentPlanner<IntentArgsOf[N]> } = { ...RECORD_PLANNERS, ...ADMIN_PLANNERS };

export const isIntentName = (name: string): name is IntentName => Object.hasOwn(PLANNERS, name);

/** One intent as read back: a known name, and arguments of its shape (a record intent's: records.ts). */
function validIntent(i: unknown): i is Intent {
  if (typeof i !== 'object' || i === null) return false;
  const { name, args } = i as { name?: unknown; args?: unknown };
  if (typeof name !== 'string' || !isIntentName(name)) return false;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  return !Object.hasOwn(RECORD_PLANNERS, name) || validRecordArgs(name as keyof RecordIntents, args as Record<string, unknown>);
}

/**
 * An outbox row's intents column read back: its intents, or null when it has none OR when they cannot be read
 * (not JSON, not a list, a name this version does not know, arguments not of their intent's shape: a row
 * edited by hand, damaged, or written by a newer version). Such an entry is planned from its row changes, as
 * an entry written before intents (D337): nothing is lost, and no later entry waits behind an error.
 */
export function readIntents(text: string | null): Intent[] | null {
  if (!text) return null;
  let raw: unknown;
  try { raw = JSON.parse(text); } catch { return null; }
  return Array.isArray(raw) && raw.length && raw.every(validIntent) ? raw : null;
}

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
