// Intents of the project records (D336): what a person does to posts, comments, lists, to-dos, milestones,
// categories and time entries, by name, with its arguments, and the requests that replay each on any server
// of the interface. Pure.
//
// Each planner reads the values it sends from its entry's row changes of ITS record (an update still sends
// only the fields the person changed; field merge stays). When those row changes are gone (the record was
// removed by a remote delete or a refusal, apply.ts drops them from the outbox), the intent plans nothing.

import { RESOURCES, type ResourceKey } from '../../registry.ts';
import type { IdLookup } from '../ids.ts';
import {
  changesOf, completionStep, createStep, deleteStep, planAction, reorderStep, updateStep, type LocalView, type Step,
} from '../plan.ts';
import { element } from '../wire.ts';
import type { IntentPlanner } from './types.ts';

/** An intent about one record (its local id). */
export interface OnRecord { readonly id: number }

/** The kinds of project records (administration's people, companies and projects: admin.ts). */
type RecordKind = 'post' | 'comment' | 'todoList' | 'todoItem' | 'milestone' | 'category' | 'timeEntry';

/** create, update and delete of every record kind, by `<resource>.<verb>`. */
type Crud = { readonly [K in RecordKind as `${K}.create` | `${K}.update` | `${K}.delete`]: OnRecord };

/** Each record intent's arguments (local ids). */
export interface RecordIntents extends Crud {
  readonly 'todoItem.complete': OnRecord;
  readonly 'todoItem.uncomplete': OnRecord;
  /** The list's items reordered (items of other lists of the project may have moved into it): its order at push time. */
  readonly 'todoItem.reorder': { readonly listId: number };
  /** One item moved within its list: its list's order at push time. */
  readonly 'todoItem.move': OnRecord;
  /** The project's lists reordered: their order at push time (a later reorder supersedes). */
  readonly 'todoList.reorder': { readonly projectId: number };
  /** One list moved among the project's lists. */
  readonly 'todoList.move': OnRecord;
  /** A milestone edited; with `moveUpcoming`, the remote shifts the later open milestones itself (§8.7). */
  readonly 'milestone.update': OnRecord & { readonly moveUpcoming: boolean; readonly offWeekends: boolean };
  readonly 'milestone.complete': OnRecord;
  readonly 'milestone.uncomplete': OnRecord;
}

const one = (s: Step | null): Step[] => (s ? [s] : []);
const tableOf = (r: ResourceKey): string => RESOURCES[r].table;

/** A record created: its create (with `find`, a plain server's lost-answer check), unless it is gone again. */
const create = (r: RecordKind): IntentPlanner<OnRecord> => (a, changes, _view, map) => {
  const c = changesOf(changes, tableOf(r), a.id);
  return c.inserted && !c.deleted ? one(createStep(r, a.id, c.inserted, map)) : [];
};

/** A record edited: the writable fields its row changes hold, nothing else. */
const update = (r: RecordKind): IntentPlanner<OnRecord> => (a, changes, _view, map) => {
  const c = changesOf(changes, tableOf(r), a.id);
  return c.updated && !c.inserted && !c.deleted ? one(updateStep(r, a.id, c.updated, map)) : [];
};

/** A record deleted: exactly its delete (what went with it is the remote's cascade), if the remote has it. */
const remove = (r: RecordKind): IntentPlanner<OnRecord> => (a, changes, _view, map) => {
  const c = changesOf(changes, tableOf(r), a.id);
  return c.deleted && !c.inserted ? one(deleteStep(r, a.id, map)) : [];
};

/** Complete or uncomplete: the named action, whatever else the entry wrote. */
const completion = (r: 'todoItem' | 'milestone', done: boolean): IntentPlanner<OnRecord> => (a, changes, _view, map) => {
  const c = changesOf(changes, tableOf(r), a.id);
  return c.updated && 'completed' in c.updated && !c.deleted ? [completionStep(r, a.id, done, map)] : [];
};

/** A reorder of `parent`'s children in their current order; nothing when none is left here (the parent went). */
const reorderOf = (r: 'todoItem' | 'todoList', parent: number, view: LocalView, map: IdLookup): Step[] =>
  (view.order(r, parent).length ? [reorderStep(r, parent, view, map)] : []);

/** One record moved among its siblings: a reorder of its current parent. */
const move = (r: 'todoItem' | 'todoList'): IntentPlanner<OnRecord> => (a, _changes, view, map) => {
  const cur = view.row(tableOf(r), a.id);
  return cur ? reorderOf(r, Number(r === 'todoItem' ? cur.todo_list_id : cur.project_id), view, map) : [];
};

/**
 * A milestone edited, ONE request: its changed fields and, when its deadline moved with "move upcoming", the
 * flags; the remote shifts its later open milestones itself (the local shifts are consequences, not sent).
 */
const milestoneUpdate: IntentPlanner<RecordIntents['milestone.update']> = (a, changes, view, map) => {
  const c = changesOf(changes, 'milestones', a.id);
  // The milestone went under the intent (a remote delete, apply.ts) while the later ones it shifted here keep
  // their new dates: sent as the row changes say (D337), or they would stay apart from the remote's for good.
  if (!c.updated && !c.inserted && !c.deleted) return a.moveUpcoming ? planAction(changes, view, map) : [];
  if (!c.updated || c.inserted || c.deleted) return [];
  const extra = a.moveUpcoming && 'deadline' in c.updated
    ? element('move-upcoming-milestones', 'true') + (a.offWeekends ? element('move-upcoming-milestones-off-weekends', 'true') : '')
    : '';
  return one(updateStep('milestone', a.id, c.updated, map, extra));
};

export const RECORD_PLANNERS: { readonly [N in keyof RecordIntents]: IntentPlanner<RecordIntents[N]> } = {
  'post.create': create('post'), 'post.update': update('post'), 'post.delete': remove('post'),
  'comment.create': create('comment'), 'comment.update': update('comment'), 'comment.delete': remove('comment'),
  'category.create': create('category'), 'category.update': update('category'), 'category.delete': remove('category'),
  'timeEntry.create': create('timeEntry'), 'timeEntry.update': update('timeEntry'), 'timeEntry.delete': remove('timeEntry'),
  'todoList.create': create('todoList'), 'todoList.update': update('todoList'), 'todoList.delete': remove('todoList'),
  'todoList.reorder': (a, _changes, view, map) => reorderOf('todoList', a.projectId, view, map),
  'todoList.move': move('todoList'),
  'todoItem.create': create('todoItem'), 'todoItem.update': update('todoItem'), 'todoItem.delete': remove('todoItem'),
  'todoItem.complete': completion('todoItem', true), 'todoItem.uncomplete': completion('todoItem', false),
  'todoItem.reorder': (a, _changes, view, map) => reorderOf('todoItem', a.listId, view, map),
  'todoItem.move': move('todoItem'),
  'milestone.create': create('milestone'), 'milestone.update': milestoneUpdate, 'milestone.delete': remove('milestone'),
  'milestone.complete': completion('milestone', true), 'milestone.uncomplete': completion('milestone', false),
};

const isId = (x: unknown): boolean => Number.isSafeInteger(x) && (x as number) > 0;

/**
 * Are `a` the arguments of the record intent `name`? Read back from the outbox, a row may have been edited by
 * hand or damaged: an id that is not one would make its planner find nothing (the action silently dropped).
 */
export function validRecordArgs(name: keyof RecordIntents, a: Readonly<Record<string, unknown>>): boolean {
  if (name === 'todoItem.reorder') return isId(a.listId);
  if (name === 'todoList.reorder') return isId(a.projectId);
  if (name === 'milestone.update') return isId(a.id) && typeof a.moveUpcoming === 'boolean' && typeof a.offWeekends === 'boolean';
  return isId(a.id);
}

/**
 * Does this intent's effect on the remote reach beyond the records its entry wrote (the push's scheduling makes
 * it a barrier, shared/sync/schedule.ts)? A milestone moved with "move upcoming": the remote picks the later
 * open milestones it shifts, so every earlier entry (a milestone completed, created, moved) must be there first.
 */
export function reachesBeyond(i: { readonly name: string; readonly args: unknown }): boolean {
  return i.name === 'milestone.update' && (i.args as Partial<RecordIntents['milestone.update']>).moveUpcoming === true;
}
