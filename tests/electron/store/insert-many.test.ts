// Writer.insertMany (D350): many new records of one table in a few statements (a clone's page) write exactly what
// `insert` one by one writes: the same rows, a version equal to each record's feed entry, entries saying what
// clients may see (`shown`, D245) and the company (D268), the records they touch logged after them (D349), ids
// never those of a deleted record. On the engine of the run (PostgreSQL's Writer inserts them one by one).

import { describe, expect, it } from 'vitest';
import { freshAccount, type Account } from '../../support/helpers.ts';
import type { NewRow, Row, Writer } from '../../../electron/store/types.ts';

interface Entry { [k: string]: unknown; seq: number; op: string; project_id: number | null; shown: number | null; company_id: number | null }

describe('Writer.insertMany writes what insert writes, one by one (D350)', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const entry = async (tbl: string, id: number) => (await a.h.store.get<Entry>(
    'SELECT seq, op, project_id, shown, company_id FROM changes WHERE tbl = ? AND record_id = ? AND person_id IS NULL', [tbl, id]))!;
  const row = async (tbl: string, id: number) => (await a.h.store.get<Row>(`SELECT * FROM ${tbl} WHERE id = ?`, [id]))!;
  const num = (x: unknown) => Number(x);

  /** Parents: a public and a private post, a public and a private list, an item in each. */
  const parents = () => a.h.store.write(async (w) => {
    const pid = a.pid, who = a.f.person.fran;
    const post = (priv: number) => w.insert('posts', { title: `P${priv}`, body: 'b', extended_body: '', category_id: null, milestone_id: null, use_textile: 0, private: priv, posted_on: w.now, project_id: pid, author_id: who }, pid);
    const list = (priv: number) => w.insert('todo_lists', { project_id: pid, name: `L${priv}`, description: '', private: priv, tracked: 0, position: 1 }, pid);
    const item = (l: number) => w.insert('todo_items', { todo_list_id: l, project_id: pid, content: 'I', position: 1, completed: 0, created_at: w.now, updated_at: w.now, creator_id: who }, pid);
    const [p0, p1, l0, l1] = [await post(0), await post(1), await list(0), await list(1)];
    return { p0, p1, l0, l1, i0: await item(l0), i1: await item(l1) };
  });

  /** Both ways, on the same values: the rows and entries compared record by record. */
  const both = async (table: string, rows: NewRow[]) => {
    const one = await a.h.store.write(async (w) => { const ids: number[] = []; for (const r of rows) ids.push(await w.insert(table, r.values, r.projectId)); return ids; });
    const many = await a.h.store.write((w) => w.insertMany(table, rows));
    expect(many).toHaveLength(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const [x, y] = [await row(table, one[i]), await row(table, many[i])];
      const [ex, ey] = [await entry(table, one[i]), await entry(table, many[i])];
      expect({ ...y, id: 0, version: 0 }).toEqual({ ...x, id: 0, version: 0 });
      expect({ ...ey, seq: 0 }).toEqual({ ...ex, seq: 0 });
      expect(ey.op).toBe('insert');
      expect(num(y.version)).toBe(num(ey.seq));
    }
    return { one, many };
  };

  it('comments on public and private records, to-dos of public and private lists, time entries: the same rows and entries', async () => {
    const { p0, p1, l0, l1, i0, i1 } = await parents();
    const pid = a.pid, who = a.f.person.fran;
    const comment = (type: string, id: number, priv = 0): NewRow => ({ values: { body: `on ${type} ${id}`, commentable_type: type, commentable_id: id, author_id: who, created_at: '2030-01-01T00:00:00Z', private: priv, project_id: pid }, projectId: pid });
    const comments = await both('comments', [comment('Post', p0), comment('Post', p1), comment('TodoItem', i0), comment('TodoItem', i1), comment('Post', p0, 1)]);
    // What clients may see of them, as insert said: the public post's comment only, and the public list's item's.
    expect(await Promise.all(comments.many.map(async (id) => num((await entry('comments', id)).shown)))).toEqual([1, 0, 1, 0, 0]);
    const item = (l: number, extra: Row = {}): NewRow => ({ values: { todo_list_id: l, project_id: pid, content: 'x', position: 2, completed: 0, created_at: '2030-01-01T00:00:00Z', updated_at: '2030-01-01T00:00:00Z', creator_id: who, ...extra }, projectId: pid });
    // Two shapes of row (a column more in one) in one call.
    const items = await both('todo_items', [item(l0), item(l1), item(l0, { due_at: '2030-02-01T00:00:00Z' }), item(l1)]);
    expect(await Promise.all(items.many.map(async (id) => num((await entry('todo_items', id)).shown)))).toEqual([1, 0, 1, 0]);
    await both('time_entries', [i0, i1, null].map((t) => ({ values: { project_id: pid, person_id: who, date: '2030-01-01', hours: 1, description: 'd', todo_item_id: t, private: 0 }, projectId: pid })));
  });

  it('people of the firm and of a client company: their entries name the company', async () => {
    const person = (n: number, company: number): NewRow => ({ values: { first_name: `F${n}`, last_name: 'L', email_address: `p${n}@example.com`, user_name: null, title: '', time_zone_name: 'UTC', company_id: company, administrator: 0, token: null, password_hash: null, created_at: '2030-01-01T00:00:00Z', updated_at: '2030-01-01T00:00:00Z' } });
    const { many } = await both('people', [person(1, a.f.company.firm), person(2, a.f.company.client)]);
    expect((await entry('people', many[1])).company_id).toBe(a.f.company.client);
  });

  it('the records they touch are logged after them, once: the list, the post, the project', async () => {
    const { p0, l0 } = await parents();
    const pid = a.pid, who = a.f.person.fran;
    const items = await a.h.store.write((w) => w.insertMany('todo_items', [1, 2, 3].map((k) => ({ values: { todo_list_id: l0, project_id: pid, content: `t${k}`, position: k, completed: 0, created_at: w.now, updated_at: w.now, creator_id: who }, projectId: pid }))));
    const last = Math.max(...await Promise.all(items.map(async (i) => (await entry('todo_items', i)).seq)));
    expect(num((await entry('todo_lists', l0)).seq)).toBeGreaterThan(last);
    expect(num((await entry('projects', pid)).seq)).toBeGreaterThan(last);
    const comments = await a.h.store.write((w) => w.insertMany('comments', [{ values: { body: 'c', commentable_type: 'Post', commentable_id: p0, author_id: who, created_at: w.now, private: 0, project_id: pid }, projectId: pid }]));
    expect(num((await entry('posts', p0)).seq)).toBeGreaterThan(num((await entry('comments', comments[0])).seq));
  });

  it('ids are never a deleted record\'s; 600 rows (more than a statement carries) are all written, each with its entry', async () => {
    const pid = a.pid, who = a.f.person.fran;
    const entryOf = (n: number): NewRow => ({ values: { project_id: pid, person_id: who, date: '2030-01-01', hours: n, description: `e${n}`, todo_item_id: null, private: 0 }, projectId: pid });
    const [top] = await a.h.store.write((w) => w.insertMany('time_entries', [entryOf(0)]));
    await a.h.store.write((w) => w.remove('time_entries', top, pid));
    const ids = await a.h.store.write((w) => w.insertMany('time_entries', Array.from({ length: 600 }, (_, n) => entryOf(n + 1))));
    expect(Math.min(...ids)).toBeGreaterThan(top);
    expect(new Set(ids).size).toBe(600);
    const rows = await a.h.store.all<{ id: number; hours: number; version: number; seq: number }>(
      `SELECT t.id, t.hours, t.version, c.seq FROM time_entries t JOIN changes c ON c.tbl = 'time_entries' AND c.record_id = t.id AND c.person_id IS NULL WHERE t.id >= ? ORDER BY t.id`, [Math.min(...ids)]);
    expect(rows.map((r) => num(r.hours))).toEqual(Array.from({ length: 600 }, (_, n) => n + 1));
    for (const r of rows) expect(num(r.version)).toBe(num(r.seq));
    // One entry each, in the rows' order (as insert one by one numbers them).
    const seqs = rows.map((r) => num(r.seq));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(600);
  });

  it('an id given is refused, and the transaction writes nothing', async () => {
    const count = async () => num((await a.h.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM time_entries'))!.n);
    const before = await count();
    await expect(a.h.store.write((w: Writer) => w.insertMany('time_entries', [{ values: { id: 999999, project_id: a.pid, person_id: a.f.person.fran, date: '2030-01-01', hours: 1, description: '', private: 0 } }])))
      .rejects.toThrow(/gives the ids/);
    expect(await count()).toBe(before);
  });
});
