import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { generateDataset } from '../../../electron/service/dataset.ts';
import { DEMO_ACCOUNT, seedDemo } from '../../../electron/service/demo.ts';
import { FIXTURE } from '../../support/helpers.ts';

const n = async (store: SqliteStore, sql: string, p: (string | number)[] = []): Promise<number> =>
  Number((await store.get<{ n: number }>(sql, p))!.n);

describe('generateDataset', () => {
  it('creates the requested counts through the Writer (change feed, versions)', async () => {
    const store = new SqliteStore(':memory:');
    await importSeed(store, FIXTURE);
    const feedBefore = await n(store, "SELECT COUNT(*) AS n FROM changes WHERE tbl <> 'project_members'");
    const sizes = { projects: 3, people: 4, categoriesPerProject: 3, milestonesPerProject: 2, posts: 40, comments: 120, todoItems: 200, todoLists: 8, timeEntries: 500, days: 60 };
    const s = await generateDataset(store, sizes);
    const projectCount = 3 + 3; // the fixture's three projects have members and get content too
    expect(s.counts).toEqual({
      projects: 3, people: 4, categories: 3 * projectCount, milestones: 2 * projectCount, posts: 40, comments: 120, todoLists: 8, todoItems: 200, timeEntries: 500,
    });
    const tables: [string, number][] = [['projects', 6], ['people', 5 + 4], ['categories', 18], ['milestones', 12], ['posts', 40], ['comments', 120],
      ['todo_lists', 8], ['todo_items', 200], ['time_entries', 500]];
    for (const [t, want] of tables) {
      expect(await n(store, `SELECT COUNT(*) AS n FROM ${t}`), t).toBe(want);
      // Every generated row is in the change feed and carries its version.
      expect(await n(store, `SELECT COUNT(*) AS n FROM ${t} WHERE version = 0`), `${t} versions`).toBe(0);
    }
    const inserted = 3 + 4 + 18 + 12 + 40 + 120 + 8 + 200 + 500;
    expect(await n(store, "SELECT COUNT(*) AS n FROM changes WHERE tbl <> 'project_members'") - feedBefore).toBe(inserted);
    // Every membership is in the feed too (one entry per project and person).
    expect(await n(store, "SELECT COUNT(*) AS n FROM changes WHERE tbl = 'project_members'")).toBe(await n(store, 'SELECT COUNT(*) AS n FROM project_members'));
    expect(await n(store, "SELECT COUNT(*) AS n FROM changes c JOIN time_entries te ON te.id = c.record_id WHERE c.tbl = 'time_entries' AND c.op = 'insert'")).toBe(500);

    // The data is consistent with the contract's rules.
    expect(await n(store, `SELECT COUNT(*) AS n FROM time_entries te WHERE NOT EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = te.project_id AND pm.person_id = te.person_id)`)).toBe(0);
    expect(await n(store, 'SELECT COUNT(*) AS n FROM time_entries te JOIN todo_items ti ON ti.id = te.todo_item_id WHERE ti.project_id <> te.project_id')).toBe(0);
    expect(await n(store, 'SELECT COUNT(*) AS n FROM todo_items ti JOIN todo_lists tl ON tl.id = ti.todo_list_id WHERE ti.project_id <> tl.project_id')).toBe(0);
    // Positions are contiguous 1..n within each list.
    const lists = await store.all<{ c: number; mx: number; mn: number }>('SELECT COUNT(*) AS c, MAX(position) AS mx, MIN(position) AS mn FROM todo_items GROUP BY todo_list_id');
    for (const l of lists) expect([l.mn, l.mx]).toEqual([1, l.c]);
    expect(await n(store, 'SELECT COUNT(*) AS n FROM todo_items WHERE completed = 1')).toBeGreaterThan(0);
    expect(await n(store, 'SELECT COUNT(*) AS n FROM todo_items WHERE responsible_party_id IS NOT NULL')).toBeGreaterThan(0);
    expect(await n(store, "SELECT COUNT(*) AS n FROM comments WHERE commentable_type = 'TodoItem'")).toBeGreaterThan(0);
    expect(await n(store, 'SELECT COUNT(DISTINCT person_id) AS n FROM time_entries')).toBeGreaterThan(3);
    const since = new Date(Date.now() - 61 * 86_400_000).toISOString().slice(0, 10);
    expect(await n(store, 'SELECT COUNT(*) AS n FROM time_entries WHERE date < ?', [since])).toBe(0);
    expect(s.biggestList).not.toBeNull();
    await store.close();
  });

  it('is deterministic for a seed', async () => {
    const rows: unknown[][] = [];
    for (let k = 0; k < 2; k++) {
      const store = new SqliteStore(':memory:');
      await importSeed(store, FIXTURE);
      await generateDataset(store, { posts: 5, todoItems: 20, timeEntries: 30, now: new Date('2030-01-01T00:00:00Z'), seed: 7 });
      rows.push(await store.all('SELECT project_id, person_id, date, hours, description, todo_item_id FROM time_entries ORDER BY id'));
      await store.close();
    }
    expect(rows[0]).toEqual(rows[1]);
  });

  it('the demo account has modest content and is quick to create', async () => {
    const store = new SqliteStore(':memory:');
    const t = performance.now();
    await seedDemo(store);
    expect(performance.now() - t).toBeLessThan(1500);
    expect(await n(store, 'SELECT COUNT(*) AS n FROM projects')).toBe(DEMO_ACCOUNT.projects.length);
    for (const table of ['todo_lists', 'todo_items', 'posts', 'comments', 'categories', 'time_entries']) {
      expect(await n(store, `SELECT COUNT(*) AS n FROM ${table}`), table).toBeGreaterThan(0);
    }
    const since = new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 10);
    expect(await n(store, 'SELECT COUNT(*) AS n FROM time_entries WHERE date < ?', [since])).toBe(0);
    await store.close();
  });
});
