// The records a transaction's changes touch (a list's counts, a project's last-changed-on, a commented record's
// figures: their feed entries, docs/sync-protocol.md §3.4) are logged once each, after every other entry of the
// transaction (D349): a transaction adding ten to-dos to a new list writes 13 entries (the list, ten to-dos, the list and the project touched), not 32; the list's and the
// project's entries come after every to-do's, as before; a record deleted after a change touched it keeps its
// delete. On the engine of the run (the PostgreSQL Writer logs its entries at commit already).

import { describe, expect, it } from 'vitest';
import { freshAccount, type Account } from '../../support/helpers.ts';

interface Entry { [k: string]: unknown; seq: number; tbl: string; record_id: number; op: string }

describe('touched records: one entry each, after the transaction\'s others (D349)', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const clock = async () => Number((await a.h.store.get<{ seq: number }>('SELECT seq FROM feed_clock WHERE id = 1'))!.seq);
  const entry = async (tbl: string, id: number) => a.h.store.get<Entry>('SELECT seq, tbl, record_id, op FROM changes WHERE tbl = ? AND record_id = ? AND person_id IS NULL', [tbl, id]);

  it('ten to-dos added to a new list in one transaction: 13 entries, not 32; the list and the project after every to-do', async () => {
    const pid = a.pid, who = a.f.person.fran;
    const before = await clock();
    const { list, items } = await a.h.store.write(async (w) => {
      const list = await w.insert('todo_lists', { project_id: pid, name: 'Ten', description: '', private: 0, tracked: 0, position: 1 }, pid);
      const items: number[] = [];
      for (let i = 0; i < 10; i++) {
        items.push(await w.insert('todo_items', { todo_list_id: list, project_id: pid, content: `I${i}`, position: i + 1, completed: 0, created_at: w.now, updated_at: w.now, creator_id: who }, pid));
      }
      return { list, items };
    });
    // The list, ten to-dos, then the list and the project touched: once each (each touch logged at once: 32).
    if (a.h.engine === 'sqlite') expect(await clock() - before).toBe(13);
    const last = Math.max(...await Promise.all(items.map(async (i) => (await entry('todo_items', i))!.seq)));
    expect((await entry('todo_lists', list))!.seq).toBeGreaterThan(last);
    expect((await entry('projects', pid))!.seq).toBeGreaterThan(last);
    // A list created and touched in its transaction: its one entry is an update, as when each touch was logged.
    expect((await entry('todo_lists', list))!.op).toBe('update');
  });

  it('a list whose to-do changed, then deleted in the same transaction, keeps its delete; its project is touched', async () => {
    const pid = a.pid, who = a.f.person.fran;
    const { list, item } = await a.h.store.write(async (w) => {
      const list = await w.insert('todo_lists', { project_id: pid, name: 'Gone', description: '', private: 0, tracked: 0, position: 1 }, pid);
      const item = await w.insert('todo_items', { todo_list_id: list, project_id: pid, content: 'I', position: 1, completed: 0, created_at: w.now, updated_at: w.now, creator_id: who }, pid);
      return { list, item };
    });
    await a.h.store.write(async (w) => {
      await w.update('todo_items', item, { content: 'changed' }, pid); // touches the list
      await w.remove('todo_items', item, pid);
      await w.remove('todo_lists', list, pid);
    });
    expect((await entry('todo_lists', list))!.op).toBe('delete');
    expect((await entry('todo_items', item))!.op).toBe('delete');
    expect((await entry('projects', pid))!.seq).toBeGreaterThan((await entry('todo_lists', list))!.seq);
  });
});
