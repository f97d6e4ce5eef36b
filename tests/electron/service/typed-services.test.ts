// Services take typed inputs and answer typed records (issue #30, D323–D324): sync, IPC, the CLI and
// tests call them directly, without a request body. The checks are the registry's, with the messages a
// body gets (the contract's), and the answer is a record whose named columns have their types.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { seededStore } from '../../support/helpers.ts';
import { localAdministrator } from '../../../electron/service/admin.ts';
import * as projects from '../../../electron/service/projects.ts';
import * as posts from '../../../electron/service/posts.ts';
import * as comments from '../../../electron/service/comments.ts';
import * as todoLists from '../../../electron/service/todo-lists.ts';
import * as todoItems from '../../../electron/service/todo-items.ts';
import * as milestones from '../../../electron/service/milestones.ts';
import * as timeEntries from '../../../electron/service/time-entries.ts';
import * as categories from '../../../electron/service/categories.ts';
import { ApiError, type Ctx } from '../../../electron/service/context.ts';
import { ROW_COLUMNS, type RecordRow } from '../../../shared/rows.ts';
import type { Store } from '../../../electron/store/types.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

let store: Store;
let ctx: Ctx;
let pid: number;

beforeEach(async () => {
  store = await seededStore();
  const caller = await localAdministrator(store);
  ctx = { store, caller: caller! };
  pid = (await projects.list(ctx))[0].id;
});
afterEach(async () => { await store.close(); });

/** The 422 (or other) answer of an operation. */
async function refusal(p: Promise<unknown>): Promise<{ status: number; messages: readonly string[] }> {
  try { await p; } catch (e) {
    if (e instanceof ApiError) return { status: e.status, messages: e.messages };
    throw e;
  }
  throw new Error('the operation succeeded');
}

/** Every column the row type names is there, with a value of its kind (numbers for ids, 0/1 for flags). */
function typed(table: keyof typeof ROW_COLUMNS, row: RecordRow): void {
  for (const col of ROW_COLUMNS[table]) expect(row, `${table}.${col}`).toHaveProperty(col);
  for (const col of ['id', 'project_id', 'author_id', 'todo_list_id', 'position', 'person_id', 'creator_id']) {
    if (col in row) expect(typeof row[col], `${table}.${col}`).toBe('number');
  }
  // stored flags are 0 or 1; a list's `completed` is the service's boolean (no open item)
  const flags = table === 'todo_lists' ? ['private', 'tracked'] : ['completed', 'private', 'use_textile'];
  for (const col of flags) if (col in row) expect([0, 1], `${table}.${col}`).toContain(row[col]);
}

describe('services take typed inputs (no body) and answer typed records', () => {
  it('a post and a comment on it, from plain values', async () => {
    const post = await posts.create(ctx, pid, { title: 'Typed', body: 'from the CLI', use_textile: true, private: false });
    typed('posts', post);
    expect(post).toMatchObject({ title: 'Typed', body: 'from the CLI', use_textile: 1, private: 0, project_id: pid, author_id: ctx.caller.id });
    expect(post.display_body).toContain('from the CLI');
    const c = await comments.create(ctx, 'Post', post.id, { body: 'a comment' });
    typed('comments', c);
    expect(c).toMatchObject({ body: 'a comment', commentable_type: 'Post', commentable_id: post.id, project_id: pid });
    const changed = await posts.update(ctx, post.id, { title: 'Renamed' });
    expect(changed).toMatchObject({ title: 'Renamed', body: 'from the CLI' });
  });

  it('a list, items reordered by number ids, moved by a number, completed', async () => {
    const list = await todoLists.create(ctx, pid, { name: 'Typed list', tracked: true });
    typed('todo_lists', list);
    expect(list).toMatchObject({ name: 'Typed list', tracked: 1, uncompleted_count: 0, complete: true });
    const a = await todoItems.create(ctx, list.id, { content: 'a' });
    const b = await todoItems.create(ctx, list.id, { content: 'b', due_at: '2030-01-02' });
    typed('todo_items', b);
    expect([a.position, b.position]).toEqual([1, 2]);
    expect((await todoItems.reorder(ctx, list.id, [b.id, a.id])).map((r) => r.id)).toEqual([b.id, a.id]);
    expect((await todoItems.move(ctx, b.id, 2)).position).toBe(2);
    expect((await todoItems.complete(ctx, a.id)).completed).toBe(1);
    const lists = await todoLists.reorder(ctx, pid, [list.id]);
    expect(lists[0]).toMatchObject({ id: list.id, position: 1 });
  });

  it('a milestone batch and an update that moves the later ones; a time entry', async () => {
    const [m1, m2] = await milestones.create(ctx, pid, [{ title: 'One', deadline: '2031-03-03' }, { title: 'Two', deadline: '2031-03-10' }]);
    typed('milestones', m1);
    expect([m1.title, m2.title, m1.completed]).toEqual(['One', 'Two', 0]);
    await milestones.update(ctx, m1.id, { deadline: '2031-03-05', move_upcoming_milestones: true });
    expect((await milestones.get(ctx, m2.id)).deadline).toBe('2031-03-12');
    const e = await timeEntries.create(ctx, pid, { date: '2031-01-01', hours: 1.5, description: 'typed' });
    typed('time_entries', e);
    expect(e).toMatchObject({ hours: 1.5, person_id: ctx.caller.id, todo_item_id: null, project_id: pid });
    const cat = await categories.create(ctx, pid, { name: 'Typed', type: 'post' });
    typed('categories', cat);
    const p = await projects.create(ctx, { name: 'Typed project' });
    typed('projects', p);
    expect(p).toMatchObject({ name: 'Typed project', status: 'active' });
  });

  it('typed inputs are checked as bodies are: the same messages, in the registry order, nothing written', async () => {
    const before = (await posts.list(ctx, pid, undefined)).length;
    expect(await refusal(posts.create(ctx, pid, { title: '', use_textile: 'maybe', category_id: 'x' }))).toEqual({
      status: 422, messages: ['Category is invalid', 'Title can\'t be blank', 'Use textile is not a boolean'],
    });
    // a value that is no scalar (what a hostile IPC caller could send) is "invalid", not a crash
    expect(await refusal(posts.create(ctx, pid, { title: { nested: true } }))).toEqual({ status: 422, messages: ['Title is invalid'] });
    expect((await posts.list(ctx, pid, undefined)).length).toBe(before);
    const list = await todoLists.create(ctx, pid, { name: 'L' });
    expect(await refusal(todoItems.reorder(ctx, list.id, [0, 'x']))).toEqual({ status: 422, messages: ['Id is invalid (2 records)'] });
    expect(await refusal(todoItems.create(ctx, list.id, {}))).toEqual({ status: 422, messages: ["Content can't be blank"] });
    // 404 before 422, as for a body: the checks of the record come first
    expect((await refusal(posts.update(ctx, 999_999, { title: '' }))).status).toBe(404);
    expect(await refusal(timeEntries.createLegacy(ctx, { hours: 1 }))).toEqual({
      status: 422, messages: ["Project can't be blank", "Date can't be blank"],
    });
  });
});

describe('electron/service takes no request tree (D323)', () => {
  it('no service module imports the input codec or names XNode', () => {
    const dir = `${root}/electron/service`;
    const offenders = readdirSync(dir).filter((f) => f.endsWith('.ts'))
      .filter((f) => /codec\/in\.ts|\bXNode\b/.test(readFileSync(`${dir}/${f}`, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the layering rule refuses an import of shared/codec/in.ts in electron/service', async () => {
    const eslint = new ESLint({ cwd: root });
    const [res] = await eslint.lintText("import type { XNode } from '../../shared/codec/in.ts';\nexport type T = XNode;\n",
      { filePath: `${root}/electron/service/example.ts` });
    const msgs = res.messages.filter((m) => m.ruleId === 'bivouac/layering').map((m) => m.message);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toContain('services take typed inputs');
  });
});
