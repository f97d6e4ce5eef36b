// Every service action on a project record names its intent (D336) in the transaction that does it: on a
// replica's store (its outbox recording), each request below appends ONE outbox entry carrying exactly the
// intents expected, beside its row changes. Table-driven over the services of the records.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import type { SqliteStore } from '../../../electron/store/sqlite.ts';
import { fx, harness, locId, type Harness } from '../../support/helpers.ts';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';

describe('the intents the services name (on a replica store)', () => {
  let h: Harness;
  let pid: number;
  beforeAll(async () => {
    h = await harness({ engine: 'sqlite' });
    pid = (await fx(h)).project.alpha;
    (h.store as SqliteStore).recordOutbox = true;
  });
  afterAll(() => h.close());

  /** Ids made by earlier rows of the table, by name. */
  const ids: Record<string, number> = {};
  type Row = [label: string, method: string, path: () => string, body: string | undefined | (() => string), intents: () => unknown[], save?: string];
  const rows: Row[] = [
    ['post create', 'POST', () => `/projects/${pid}/posts.xml`, `${XML}<post><title>T</title><body>B</body></post>`, () => [{ name: 'post.create', args: { id: ids.post } }], 'post'],
    ['post update', 'PUT', () => `/posts/${ids.post}.xml`, `${XML}<post><title>T2</title></post>`, () => [{ name: 'post.update', args: { id: ids.post } }]],
    ['comment create', 'POST', () => `/posts/${ids.post}/comments.xml`, `${XML}<comment><body>c</body></comment>`, () => [{ name: 'comment.create', args: { id: ids.comment } }], 'comment'],
    ['comment update', 'PUT', () => `/comments/${ids.comment}.xml`, `${XML}<comment><body>c2</body></comment>`, () => [{ name: 'comment.update', args: { id: ids.comment } }]],
    ['comment delete', 'DELETE', () => `/comments/${ids.comment}.xml`, undefined, () => [{ name: 'comment.delete', args: { id: ids.comment } }]],
    ['post delete', 'DELETE', () => `/posts/${ids.post}.xml`, undefined, () => [{ name: 'post.delete', args: { id: ids.post } }]],
    ['category create', 'POST', () => `/projects/${pid}/categories.xml`, `${XML}<category><name>K</name><type>post</type></category>`, () => [{ name: 'category.create', args: { id: ids.category } }], 'category'],
    ['category update', 'PUT', () => `/categories/${ids.category}.xml`, `${XML}<category><name>K2</name></category>`, () => [{ name: 'category.update', args: { id: ids.category } }]],
    ['category delete', 'DELETE', () => `/categories/${ids.category}.xml`, undefined, () => [{ name: 'category.delete', args: { id: ids.category } }]],
    ['list create', 'POST', () => `/projects/${pid}/todo_lists.xml`, `${XML}<todo-list><name>L1</name></todo-list>`, () => [{ name: 'todoList.create', args: { id: ids.list } }], 'list'],
    ['list 2 create', 'POST', () => `/projects/${pid}/todo_lists.xml`, `${XML}<todo-list><name>L2</name></todo-list>`, () => [{ name: 'todoList.create', args: { id: ids.list2 } }], 'list2'],
    ['list update', 'PUT', () => `/todo_lists/${ids.list}.xml`, `${XML}<todo-list><name>L1b</name></todo-list>`, () => [{ name: 'todoList.update', args: { id: ids.list } }]],
    ['lists reorder', 'POST', () => `/projects/${pid}/todo_lists/reorder.xml`, () => `${XML}<todo-lists><todo-list><id>${ids.list2}</id></todo-list></todo-lists>`, () => [{ name: 'todoList.reorder', args: { projectId: pid } }]],
    ['list move', 'POST', () => `/todos/move_list/${ids.list}`, `${XML}<request><to>1</to></request>`, () => [{ name: 'todoList.move', args: { id: ids.list } }]],
    ['item create', 'POST', () => `/todo_lists/${ids.list}/todo_items.xml`, `${XML}<todo-item><content>i1</content></todo-item>`, () => [{ name: 'todoItem.create', args: { id: ids.item } }], 'item'],
    ['item 2 create', 'POST', () => `/todo_lists/${ids.list}/todo_items.xml`, `${XML}<todo-item><content>i2</content></todo-item>`, () => [{ name: 'todoItem.create', args: { id: ids.item2 } }], 'item2'],
    ['item update', 'PUT', () => `/todo_items/${ids.item}.xml`, `${XML}<todo-item><content>i1b</content></todo-item>`, () => [{ name: 'todoItem.update', args: { id: ids.item } }]],
    ['item complete', 'PUT', () => `/todo_items/${ids.item}/complete.xml`, undefined, () => [{ name: 'todoItem.complete', args: { id: ids.item } }]],
    ['item uncomplete', 'PUT', () => `/todo_items/${ids.item}/uncomplete.xml`, undefined, () => [{ name: 'todoItem.uncomplete', args: { id: ids.item } }]],
    ['item move', 'POST', () => `/todos/move_item/${ids.item2}`, `${XML}<request><to>1</to></request>`, () => [{ name: 'todoItem.move', args: { id: ids.item2 } }]],
    ['items reorder', 'POST', () => `/todo_lists/${ids.list}/todo_items/reorder.xml`, () => `${XML}<todo-items><todo-item><id>${ids.item}</id></todo-item></todo-items>`, () => [{ name: 'todoItem.reorder', args: { listId: ids.list } }]],
    ['item moved to another list', 'POST', () => `/todo_lists/${ids.list2}/todo_items/reorder.xml`, () => `${XML}<todo-items><todo-item><id>${ids.item2}</id></todo-item></todo-items>`, () => [{ name: 'todoItem.reorder', args: { listId: ids.list2 } }]],
    ['time entry create', 'POST', () => `/projects/${pid}/time_entries.xml`, `${XML}<time-entry><date>2026-01-02</date><hours>1.5</hours></time-entry>`, () => [{ name: 'timeEntry.create', args: { id: ids.time } }], 'time'],
    ['time entry update', 'PUT', () => `/time_entries/${ids.time}.xml`, `${XML}<time-entry><hours>2</hours></time-entry>`, () => [{ name: 'timeEntry.update', args: { id: ids.time } }]],
    ['time entry delete', 'DELETE', () => `/time_entries/${ids.time}.xml`, undefined, () => [{ name: 'timeEntry.delete', args: { id: ids.time } }]],
    ['item delete', 'DELETE', () => `/todo_items/${ids.item}.xml`, undefined, () => [{ name: 'todoItem.delete', args: { id: ids.item } }]],
    ['list delete', 'DELETE', () => `/todo_lists/${ids.list2}.xml`, undefined, () => [{ name: 'todoList.delete', args: { id: ids.list2 } }]],
    ['milestones create (a batch)', 'POST', () => `/projects/${pid}/milestones/create`,
      `${XML}<request><milestone><title>M1</title><deadline>2099-01-05</deadline></milestone><milestone><title>M2</title><deadline>2099-01-12</deadline></milestone></request>`,
      () => [{ name: 'milestone.create', args: { id: ids.ms } }, { name: 'milestone.create', args: { id: ids.ms + 1 } }], 'ms'],
    ['milestone update', 'POST', () => `/milestones/update/${ids.ms}`, `${XML}<request><milestone><title>M1b</title></milestone></request>`,
      () => [{ name: 'milestone.update', args: { id: ids.ms, moveUpcoming: false, offWeekends: false } }]],
    ['milestone moved with move upcoming', 'POST', () => `/milestones/update/${ids.ms}`,
      `${XML}<request><milestone><deadline>2099-01-06</deadline></milestone><move-upcoming-milestones>true</move-upcoming-milestones><move-upcoming-milestones-off-weekends>true</move-upcoming-milestones-off-weekends></request>`,
      () => [{ name: 'milestone.update', args: { id: ids.ms, moveUpcoming: true, offWeekends: true } }]],
    ['milestone complete', 'POST', () => `/milestones/complete/${ids.ms}`, undefined, () => [{ name: 'milestone.complete', args: { id: ids.ms } }]],
    ['milestone uncomplete', 'POST', () => `/milestones/uncomplete/${ids.ms}`, undefined, () => [{ name: 'milestone.uncomplete', args: { id: ids.ms } }]],
    ['milestone delete', 'POST', () => `/milestones/delete/${ids.ms}`, undefined, () => [{ name: 'milestone.delete', args: { id: ids.ms } }]],
  ];

  it.each(rows.map((r) => [r[0], r] as const))('%s', async (_label, [, method, path, body, intents, save]) => {
    const before = await q.outbox(h.store);
    const r = await h.req('fran', method, path(), typeof body === 'function' ? body() : body);
    expect(r.status, r.body).toBeLessThan(300);
    if (save) ids[save] = r.headers.location ? locId(r) : NaN;
    const after = await q.outbox(h.store);
    expect(after.length).toBe(before.length + 1);
    const entry = after.at(-1)!;
    expect(entry.intents).toEqual(intents());
    expect(entry.changes.length).toBeGreaterThan(0);
  });

  it('the move upcoming entry holds the shifted milestone\'s row change beside its one intent', async () => {
    const entries = await q.outbox(h.store);
    const moved = entries.find((e) => e.intents?.[0]?.name === 'milestone.update' && (e.intents[0].args as { moveUpcoming: boolean }).moveUpcoming)!;
    expect(moved.intents).toHaveLength(1);
    expect(moved.changes.map((c) => c.id)).toEqual([ids.ms, ids.ms + 1]);
  });

  it('an action that changes nothing (completing a completed to-do, a reorder to the same order) appends nothing', async () => {
    const before = (await q.outbox(h.store)).length;
    const it1 = locId(await h.req('fran', 'POST', `/todo_lists/${ids.list}/todo_items.xml`, `${XML}<todo-item><content>i3</content></todo-item>`));
    expect((await h.req('fran', 'PUT', `/todo_items/${it1}/complete.xml`)).status).toBe(200);
    expect((await h.req('fran', 'PUT', `/todo_items/${it1}/complete.xml`)).status).toBe(200);
    expect((await h.req('fran', 'POST', `/todos/move_item/${it1}`, `${XML}<request><to>99</to></request>`)).status).toBe(200);
    expect((await q.outbox(h.store)).length).toBe(before + 2);
  });
});
