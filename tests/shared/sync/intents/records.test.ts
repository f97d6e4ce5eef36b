// The record intents' planners (shared/sync/intents/records.ts, D336): each intent of an outbox entry becomes
// the requests that replay exactly that action, reading the values it sends from its entry's row changes.

import { describe, expect, it } from 'vitest';
import { planEntry, type Intent } from '../../../../shared/sync/intents/index.ts';
import { planAction, Unmapped, type LocalView, type RowChange } from '../../../../shared/sync/plan.ts';
import { dependencies } from '../../../../shared/sync/schedule.ts';
import type { WireRow } from '../../../../shared/sync/wire.ts';

const REMOTE = 1000; // remote id = local id + REMOTE
const map = (_r: string, id: number): number | undefined => (id >= 900 ? undefined : id + REMOTE); // ids >= 900: created here, not on the remote yet

/** A view over local rows (`table:id`) and the current orders (`resource:parent`). */
function view(rows: Record<string, WireRow> = {}, orders: Record<string, number[]> = {}): LocalView {
  return { row: (t, id) => rows[`${t}:${id}`], order: (r, p) => orders[`${r}:${p}`] ?? [] };
}
const plan = (intents: Intent[] | null, changes: RowChange[], v: LocalView = view()) =>
  planEntry({ intents, changes }, v, map).map((s) => `${s.method} ${s.path}${s.body ? ` ${s.body.replace(/^<\?xml[^>]*>\n/, '')}` : ''}`);

describe('record intents: one request per action', () => {
  it('a milestone moved with "move upcoming" is ONE update carrying both flags; the shifted milestones are not sent', () => {
    const changes: RowChange[] = [
      { t: 'milestones', id: 1, op: 'update', v: { deadline: '2026-12-08' } },
      { t: 'milestones', id: 2, op: 'update', v: { deadline: '2026-12-14' } },
      { t: 'milestones', id: 3, op: 'update', v: { deadline: '2026-12-21' } },
    ];
    expect(plan([{ name: 'milestone.update', args: { id: 1, moveUpcoming: true, offWeekends: true } }], changes)).toEqual([
      'POST /milestones/update/1001 <request><milestone><deadline>2026-12-08</deadline></milestone>'
        + '<move-upcoming-milestones>true</move-upcoming-milestones><move-upcoming-milestones-off-weekends>true</move-upcoming-milestones-off-weekends></request>',
    ]);
    // Without the flag the remote is told nothing about shifting; off weekends alone means nothing.
    expect(plan([{ name: 'milestone.update', args: { id: 1, moveUpcoming: true, offWeekends: false } }], changes)).toEqual([
      'POST /milestones/update/1001 <request><milestone><deadline>2026-12-08</deadline></milestone><move-upcoming-milestones>true</move-upcoming-milestones></request>',
    ]);
    // What the row changes alone make of it (an entry of an older version): three separate updates.
    expect(planAction(changes, view(), map).map((s) => s.path)).toEqual(['/milestones/update/1001', '/milestones/update/1002', '/milestones/update/1003']);
  });

  it('a milestone edit without a new deadline sends no flags, even when they were given', () => {
    expect(plan([{ name: 'milestone.update', args: { id: 1, moveUpcoming: true, offWeekends: false } }], [{ t: 'milestones', id: 1, op: 'update', v: { title: 'Summit' } }]))
      .toEqual(['POST /milestones/update/1001 <request><milestone><title>Summit</title></milestone></request>']);
  });

  it('the delete of a list is one DELETE of the list (its items, their comments, the renumbered lists are the remote\'s)', () => {
    const changes: RowChange[] = [
      { t: 'comments', id: 7, op: 'delete' }, { t: 'todo_items', id: 4, op: 'delete' }, { t: 'todo_items', id: 5, op: 'delete' },
      { t: 'todo_lists', id: 2, op: 'delete' }, { t: 'todo_lists', id: 3, op: 'update', v: { position: 2 } },
    ];
    expect(plan([{ name: 'todoList.delete', args: { id: 2 } }], changes)).toEqual(['DELETE /todo_lists/1002.xml']);
  });

  it('a delete replays the NAMED record\'s delete, not the one highest in the hierarchy', () => {
    // A comment deleted in the same transaction as its post was re-filed (one entry holding both): the guess
    // picks the post; the intent says it was the comment.
    const changes: RowChange[] = [{ t: 'comments', id: 7, op: 'delete' }, { t: 'posts', id: 3, op: 'delete' }];
    expect(plan([{ name: 'comment.delete', args: { id: 7 } }], changes)).toEqual(['DELETE /comments/1007.xml']);
    expect(planAction(changes, view(), map).map((s) => s.path)).toEqual(['/posts/1003.xml']);
  });

  it('complete then edit in one entry: the complete, then an update of the edited field only, in that order', () => {
    const changes: RowChange[] = [
      { t: 'todo_items', id: 5, op: 'update', v: { completed: 1, completed_at: '2026-01-01T00:00:00Z', completer_id: 3, updated_at: 'x' } },
      { t: 'todo_items', id: 5, op: 'update', v: { content: 'Buy oat milk', updated_at: 'y' } },
    ];
    expect(plan([{ name: 'todoItem.complete', args: { id: 5 } }, { name: 'todoItem.update', args: { id: 5 } }], changes)).toEqual([
      'PUT /todo_items/1005/complete.xml',
      'PUT /todo_items/1005.xml <todo-item><content>Buy oat milk</content></todo-item>',
    ]);
    // The guess puts the update first.
    expect(planAction(changes, view(), map).map((s) => s.kind)).toEqual(['update', 'complete']);
  });

  it('an update sends only the fields the person changed', () => {
    expect(plan([{ name: 'post.update', args: { id: 3 } }], [{ t: 'posts', id: 3, op: 'update', v: { title: 'New title' } }]))
      .toEqual(['PUT /posts/1003.xml <post><title>New title</title></post>']);
  });

  it('a reorder after an item\'s move into the list: ONE reorder of the destination list, in its order at push time', () => {
    // Item 6 moved from list 1 into list 2 (list 1 closed its gap); later list 2 was reordered again.
    const changes: RowChange[] = [
      { t: 'todo_items', id: 6, op: 'update', v: { position: 1, todo_list_id: 2 } },
      { t: 'todo_items', id: 8, op: 'update', v: { position: 2 } },
      { t: 'todo_items', id: 7, op: 'update', v: { position: 1 } },
    ];
    const v = view({ 'todo_items:6': { id: 6, todo_list_id: 2 }, 'todo_items:8': { id: 8, todo_list_id: 2 }, 'todo_items:7': { id: 7, todo_list_id: 1 } },
      { 'todoItem:2': [8, 6], 'todoItem:1': [7] });
    expect(plan([{ name: 'todoItem.reorder', args: { listId: 2 } }], changes, v)).toEqual([
      'POST /todo_lists/1002/todo_items/reorder.xml <todo-items type="array"><todo-item><id>1008</id></todo-item><todo-item><id>1006</id></todo-item></todo-items>',
    ]);
    // The guess also reorders the list the item left (its gap closing is the remote's own).
    expect(planAction(changes, v, map).map((s) => s.path)).toEqual(['/todo_lists/1002/todo_items/reorder.xml', '/todo_lists/1001/todo_items/reorder.xml']);
  });

  it('a move is a reorder of the record\'s current parent; a list reorder sends the project\'s current order', () => {
    const v = view({ 'todo_items:6': { id: 6, todo_list_id: 2 }, 'todo_lists:2': { id: 2, project_id: 1 } }, { 'todoItem:2': [6, 8], 'todoList:1': [3, 2] });
    expect(plan([{ name: 'todoItem.move', args: { id: 6 } }], [{ t: 'todo_items', id: 6, op: 'update', v: { position: 1 } }], v))
      .toEqual(['POST /todo_lists/1002/todo_items/reorder.xml <todo-items type="array"><todo-item><id>1006</id></todo-item><todo-item><id>1008</id></todo-item></todo-items>']);
    expect(plan([{ name: 'todoList.move', args: { id: 2 } }], [{ t: 'todo_lists', id: 2, op: 'update', v: { position: 2 } }], v))
      .toEqual(['POST /projects/1001/todo_lists/reorder.xml <todo-lists type="array"><todo-list><id>1003</id></todo-list><todo-list><id>1002</id></todo-list></todo-lists>']);
    expect(plan([{ name: 'todoList.reorder', args: { projectId: 1 } }], [{ t: 'todo_lists', id: 2, op: 'update', v: { position: 2 } }], v))
      .toEqual(['POST /projects/1001/todo_lists/reorder.xml <todo-lists type="array"><todo-list><id>1003</id></todo-list><todo-list><id>1002</id></todo-list></todo-lists>']);
  });

  it('a create keeps its lost-answer check (find) and needs its parent on the remote', () => {
    const changes: RowChange[] = [{ t: 'todo_items', id: 9, op: 'insert', v: { content: 'Pack', todo_list_id: 2, project_id: 1, position: 3 } }];
    const [step] = planEntry({ intents: [{ name: 'todoItem.create', args: { id: 9 } }], changes }, view(), map);
    expect(step).toMatchObject({ kind: 'create', method: 'POST', path: '/todo_lists/1002/todo_items.xml', find: { path: '/todo_lists/1002/todo_items.xml', values: { content: 'Pack' } } });
    expect(() => planEntry({ intents: [{ name: 'todoItem.create', args: { id: 9 } }], changes: [{ ...changes[0], v: { ...changes[0].v, todo_list_id: 901 } }] }, view(), map))
      .toThrow(Unmapped);
  });

  it('milestones created in one batch: one create each, in order', () => {
    const changes: RowChange[] = [
      { t: 'milestones', id: 4, op: 'insert', v: { title: 'A', deadline: '2026-12-01', project_id: 1 } },
      { t: 'milestones', id: 5, op: 'insert', v: { title: 'B', deadline: '2026-12-02', project_id: 1 } },
    ];
    expect(plan([{ name: 'milestone.create', args: { id: 4 } }, { name: 'milestone.create', args: { id: 5 } }], changes).map((s) => s.split(' <')[0]))
      .toEqual(['POST /projects/1001/milestones/create', 'POST /projects/1001/milestones/create']);
  });

  it('an intent whose record was removed by a remote delete plans nothing', () => {
    // After the remote deleted item 5 (apply.ts): its row changes left the entry, its id map entry is gone, the row too.
    const gone = (_r: string, id: number) => (id === 5 ? undefined : id + REMOTE);
    for (const name of ['todoItem.update', 'todoItem.complete', 'todoItem.uncomplete', 'todoItem.delete', 'todoItem.move'] as const) {
      expect(planEntry({ intents: [{ name, args: { id: 5 } }], changes: [{ t: 'todo_items', id: 6, op: 'update', v: { position: 1 } }] }, view(), gone), name).toEqual([]);
    }
    expect(planEntry({ intents: [{ name: 'todoItem.reorder', args: { listId: 2 } }], changes: [] }, view(), gone)).toEqual([]);
    expect(planEntry({ intents: [{ name: 'milestone.update', args: { id: 5, moveUpcoming: false, offWeekends: false } }], changes: [] }, view(), gone)).toEqual([]);
  });

  it('a milestone moved with "move upcoming" and then removed by a remote delete: the shifts it made here are sent as updates', () => {
    // Milestone 5 went (its row changes with it); milestone 6, shifted here by the move, keeps its new date.
    const gone = (_r: string, id: number) => (id === 5 ? undefined : id + REMOTE);
    expect(planEntry({ intents: [{ name: 'milestone.update', args: { id: 5, moveUpcoming: true, offWeekends: false } }], changes: [{ t: 'milestones', id: 6, op: 'update', v: { deadline: '2026-12-24' } }] }, view(), gone)
      .map((s) => `${s.method} ${s.path}`)).toEqual(['POST /milestones/update/1006']);
  });

  it('a delete of a record the remote never had sends nothing', () => {
    expect(plan([{ name: 'post.delete', args: { id: 903 } }], [{ t: 'posts', id: 903, op: 'delete' }])).toEqual([]);
  });

  it('an entry without intents (an older version\'s, or adopted on connect) is planned from its row changes', () => {
    const changes: RowChange[] = [{ t: 'todo_items', id: 5, op: 'update', v: { completed: 1, completed_at: 'x', completer_id: 3 } }];
    expect(plan(null, changes)).toEqual(['PUT /todo_items/1005/complete.xml']);
    expect(plan([], changes)).toEqual(['PUT /todo_items/1005/complete.xml']);
  });

  it('a milestone moved with "move upcoming" waits for every earlier entry, and later ones wait for it', () => {
    const complete = { seq: 1, changes: [{ t: 'milestones', id: 3, op: 'update', v: { completed: 1 } }] as RowChange[], intents: [{ name: 'milestone.complete', args: { id: 3 } }] };
    const moved = { seq: 2, changes: [{ t: 'milestones', id: 1, op: 'update', v: { deadline: '2026-12-08' } }] as RowChange[] };
    const after = { seq: 3, changes: [{ t: 'posts', id: 9, op: 'update', v: { title: 't' } }] as RowChange[] };
    // Without the flag it overlaps the completion of another milestone; with it the remote decides what shifts.
    expect(dependencies([complete, { ...moved, intents: [{ name: 'milestone.update', args: { id: 1, moveUpcoming: false, offWeekends: false } }] }, after]).get(2)).toEqual([]);
    const deps = dependencies([complete, { ...moved, intents: [{ name: 'milestone.update', args: { id: 1, moveUpcoming: true, offWeekends: false } }] }, after]);
    expect(deps.get(2)).toEqual([1]);
    expect(deps.get(3)).toEqual([2]);
  });
});
