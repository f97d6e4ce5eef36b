// The intent outbox's types (D336). An intent is one action a person took (`todoItem.complete`,
// `todoList.reorder`, `person.create`), by name, with its arguments (local ids). The service that performs the
// action names it (Writer.outbox.intent) in the same transaction as its row changes; the push maps each intent
// to the remote's route. The row changes stay beside it: field merge, conflicts and notices read them. Pure.

import type { IdLookup } from '../ids.ts';
import type { LocalView, RowChange, Step } from '../plan.ts';

/**
 * The requests that replay one intent. `changes` are the row changes of the whole outbox entry (an intent reads
 * the values it writes from them, so an update still sends only the fields the person changed). Throws
 * `Unmapped` (plan.ts) when a record it needs is not on the remote yet.
 */
export type IntentPlanner<A> = (args: A, changes: readonly RowChange[], view: LocalView, map: IdLookup) => Step[];
