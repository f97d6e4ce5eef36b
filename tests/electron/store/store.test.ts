// One store suite, run against both implementations of the Store interface: SQLite (node:sqlite)
// and PostgreSQL (pg, on the run's throwaway cluster: tests/support/pg-global.ts). Engine-specific
// introspection (catalogs) goes through store.all like any other query.

import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { PgStore } from '../../../electron/store/postgres.ts';
import { MIGRATIONS, registrySync, tables } from '../../../electron/store/schema.ts';
import { StoreVersionError, type Clock, type MemoKey, type Store, type Writer } from '../../../electron/store/types.ts';
import { column, RESOURCES } from '../../../shared/registry.ts';
import { freshDatabase, pgSkipReason } from '../../support/pg.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { countProjectEntries, listProjectEntries } from '../../../electron/store/queries/time-entries.ts';
import { itemsOfList } from '../../../electron/store/queries/todo-items.ts';
import { listPosts } from '../../../electron/store/queries/posts.ts';
import { addMember, removeMember } from '../../../electron/store/feed.ts';
import { withCommentStats } from '../../../electron/store/queries/fragments.ts';
import { FIXTURE, fx, harness, heldWrite, locId, text } from '../../support/helpers.ts';

const dirs: string[] = [];
const opened: Store[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), 'bv-store-')); dirs.push(d); return d; };
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** What the suite needs of an engine: a new empty store, and a place to open the same store again. */
interface Engine {
  readonly name: 'sqlite' | 'postgres';
  readonly skip: string;
  /** A new location (a file, a database). */
  location(): Promise<string>;
  open(location: string, opts?: { clock?: Clock }): Promise<Store>;
  columns(s: Store, table: string): Promise<string[]>;
  indexNames(s: Store): Promise<string[]>;
  /** Run raw DDL on the location, outside the store (an older or newer database). */
  raw(location: string, sql: string[]): Promise<void>;
}

const sqlite: Engine = {
  name: 'sqlite', skip: '',
  async location() { return join(tmp(), 'db.sqlite'); },
  async open(loc, opts) { const s = new SqliteStore(loc, opts); opened.push(s); return s; },
  async columns(s, table) { return (await s.all<{ name: string }>(`PRAGMA table_info(${table})`)).map((c) => c.name); },
  async indexNames(s) { return (await s.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index'")).map((r) => r.name); },
  async raw(loc, sql) {
    const s = new SqliteStore(loc);
    for (const st of sql) s.db.exec(st);
    s.db.close();
  },
};

const postgres: Engine = {
  name: 'postgres', skip: pgSkipReason(),
  location: () => freshDatabase(),
  async open(loc, opts) { const s = await PgStore.open(loc, { ...opts, max: 4 }); opened.push(s); return s; },
  async columns(s, table) {
    return (await s.all<{ c: string }>('SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table])).map((r) => r.c);
  },
  async indexNames(s) { return (await s.all<{ n: string }>('SELECT indexname AS n FROM pg_indexes WHERE schemaname = current_schema()')).map((r) => r.n); },
  async raw(loc, sql) {
    const s = await PgStore.open(loc);
    for (const st of sql) await s.run(st);
    await s.close();
  },
};

describe.each([sqlite, postgres])('store on $name', (e) => {
  if (e.skip) {
    it.skip(`skipped: ${e.skip}`, () => undefined);
    return;
  }
  const fresh = async (opts?: { clock?: Clock }) => e.open(await e.location(), opts);

  describe('schema from the registry', () => {
    it('has a table per resource with every stored field, a version column, and indexes', async () => {
      const s = await fresh();
      const indexes = await e.indexNames(s);
      for (const r of Object.values(RESOURCES)) {
        const cols = await e.columns(s, r.table);
        for (const f of r.fields.filter((x) => x.stored)) expect(cols, `${r.table}.${f.name}`).toContain(column(f.name));
        expect(cols).toContain('version');
        for (const ix of Object.keys(r.indexes ?? {})) expect(indexes, ix).toContain(ix);
      }
    });

    it('runs migrations once and records them; reopening is idempotent', async () => {
      const loc = await e.location();
      await (await e.open(loc)).close();
      const s = await e.open(loc);
      const rows = await s.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => Number(r.version))).toEqual(MIGRATIONS.map((m) => m.version));
    });

    it('refuses a database of a newer schema version, and changes nothing in it', async () => {
      const loc = await e.location();
      await (await e.open(loc)).close();
      await e.raw(loc, ["INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', '2030-01-01T00:00:00Z')"]);
      await expect(e.open(loc)).rejects.toThrow(StoreVersionError);
      await expect(e.open(loc)).rejects.toThrow(/schema version 999, newer than this Bivouac/);
    });

    it('adds a column the registry has and an older database lacks', async () => {
      const loc = await e.location();
      await (await e.open(loc)).close();
      await e.raw(loc, ['ALTER TABLE posts DROP COLUMN use_textile']);
      const s = await e.open(loc);
      expect(await e.columns(s, 'posts')).toContain('use_textile');
      expect(registrySync(e.name, new Map([['posts', new Set(['id'])]])).some((x) => x.startsWith('ALTER TABLE posts ADD COLUMN title'))).toBe(true);
    });

    it('rebuilds an index whose columns changed in the registry, and leaves unchanged ones alone', async () => {
      const loc = await e.location();
      await (await e.open(loc)).close();
      await e.raw(loc, ['DROP INDEX comments_parent', 'CREATE INDEX comments_parent ON comments (commentable_id)']);
      const s = await e.open(loc);
      const def = e.name === 'sqlite'
        ? (await s.get<{ d: string }>("SELECT sql AS d FROM sqlite_master WHERE name = 'comments_parent'"))!.d
        : (await s.get<{ d: string }>("SELECT indexdef AS d FROM pg_indexes WHERE indexname = 'comments_parent'"))!.d;
      expect(def.replace(/\s+/g, ' ')).toContain(`(${RESOURCES.comment.indexes!.comments_parent})`);
      // Reopening finds nothing to change.
      const existing = new Map<string, Set<string>>();
      for (const t of tables(e.name)) existing.set(t.table, new Set(await e.columns(s, t.table)));
      expect(registrySync(e.name, existing).filter((x) => x.startsWith('ALTER'))).toEqual([]);
    });
  });

  describe('writes', () => {
    it('a statement of its own run while another request\'s write is open is not part of that write: it stays when the write rolls back, and reads see it (D217)', async () => {
      const s = await fresh();
      const { rollBack } = await heldWrite(s, (w) => w.insert('companies', { name: 'Never committed', firm: 0 }));
      // An idempotency key claimed, say, by another request while the write awaits.
      const ran = s.run("INSERT INTO meta (key, value) VALUES ('d217', 'kept')");
      let seen: unknown;
      const read = ran.then(async () => { seen = (await s.get<{ value: string }>("SELECT value FROM meta WHERE key = 'd217'"))?.value; });
      await new Promise((r) => setImmediate(r));
      await rollBack();
      expect((await ran).changes).toBe(1);
      await read;
      expect(seen).toBe('kept'); // read once the statement had run
      expect((await s.get<{ value: string }>("SELECT value FROM meta WHERE key = 'd217'"))?.value).toBe('kept');
      expect((await s.get<{ n: number }>("SELECT COUNT(*) AS n FROM companies WHERE name = 'Never committed'"))!.n).toBe(0);
    });

    it('the change feed carries only indexes its statements read: each is paid by every write (D216)', async () => {
      // Every write appends feed entries and deletes the superseded ones (compaction): an index is updated at
      // both, at the old entries' scattered places. changes_record serves compaction, changes_deletes
      // retention; changes_person (migration 10's) was read by no statement and cost ~3 of ~14 WAL pages a write.
      const s = await fresh();
      const names = (await e.indexNames(s)).filter((n) => n.startsWith('changes_') && n !== 'changes_pkey').sort(); // PostgreSQL names its key's index
      expect(names).toEqual(['changes_deletes', 'changes_record']);
    });

    it('a read by another request while a write is open sees what is committed, not the open write (isolation)', async () => {
      const s = await fresh();
      const id = await s.write((w) => w.insert('companies', { name: 'Before', firm: 1 }));
      const name = async () => (await s.get<{ name: string }>('SELECT name FROM companies WHERE id = ?', [id]))!.name;
      const count = async () => Number((await s.get<{ n: number }>('SELECT COUNT(*) AS n FROM companies'))!.n);
      const before = await count();
      const { rollBack } = await heldWrite(s, async (w) => {
        await w.update('companies', id, { name: 'NEVER COMMITTED' });
        await w.insert('companies', { name: 'Also never', firm: 0 });
        expect((await w.get<{ name: string }>('SELECT name FROM companies WHERE id = ?', [id]))!.name).toBe('NEVER COMMITTED'); // its own
      });
      try {
        // Another request, in the same turn of the event loop and in another.
        expect(await name()).toBe('Before');
        await new Promise((r) => setImmediate(r));
        expect(await name()).toBe('Before');
        expect(await count()).toBe(before);
        expect((await s.all<{ name: string }>('SELECT name FROM companies WHERE id = ?', [id]))[0].name).toBe('Before');
      } finally {
        await rollBack();
      }
      expect(await name()).toBe('Before');
      // A committed write shows at once, to the next read.
      await s.write((w) => w.update('companies', id, { name: 'After' }));
      expect(await name()).toBe('After');
    });

    it('records every change in the feed with row versions and tombstones, one entry per record (compacted)', async () => {
      const s = await fresh();
      const id = await s.write(async (w) => {
        const c = await w.insert('companies', { name: 'F', firm: 1 });
        await w.update('companies', c, { name: 'G' });
        return c;
      });
      const row = await s.get<{ name: string; version: number }>('SELECT name, version FROM companies WHERE id = ?', [id]);
      expect(row!.name).toBe('G');
      const feed = await s.all<{ seq: number; op: string }>('SELECT seq, op FROM changes ORDER BY seq');
      expect(feed.map((f) => f.op)).toEqual(['update']); // the insert's entry was superseded
      expect(row!.version).toBe(feed[0].seq);
      await s.write((w) => w.remove('companies', id));
      const after = await s.all<{ seq: number; op: string }>('SELECT seq, op FROM changes WHERE record_id = ? ORDER BY seq', [id]);
      expect(after.map((r) => r.op)).toEqual(['delete']);
      expect(after[0].seq).toBeGreaterThan(feed[0].seq);
    });

    it('returns integers, counts and booleans as JS numbers', async () => {
      const s = await fresh();
      await s.write((w) => w.insert('companies', { name: 'F', firm: 1 }));
      const r = await s.get('SELECT id, firm, COUNT(*) AS n, SUM(firm) AS total, 1 = 1 AS yes, 1 = 0 AS no FROM companies GROUP BY id, firm');
      expect(r).toEqual({ id: 1, firm: 1, n: 1, total: 1, yes: 1, no: 0 });
    });

    it('binds booleans, undefined and strings with question marks in them', async () => {
      const s = await fresh();
      const id = await s.write((w) => w.insert('companies', { name: "what's up? ok", firm: true as never, city: undefined as never }));
      expect(await s.get("SELECT name, firm, city FROM companies WHERE id = ? AND name LIKE '%?%'", [id])).toEqual({ name: "what's up? ok", firm: 1, city: null });
    });

    it('rolls the whole transaction back when it throws', async () => {
      const s = await fresh();
      await expect(s.write(async (w) => {
        await w.insert('companies', { name: 'A', firm: 1 });
        throw new Error('boom');
      })).rejects.toThrow('boom');
      expect(await s.all('SELECT * FROM companies')).toEqual([]);
      expect(await s.all('SELECT * FROM changes')).toEqual([]);
      expect(await s.isEmpty()).toBe(true);
    });

    it('runs concurrent write transactions one after the other', async () => {
      const s = await fresh();
      const order: string[] = [];
      await Promise.all([1, 2, 3, 4, 5].map((n) => s.write(async (w) => {
        order.push(`begin ${n}`);
        await w.insert('companies', { name: `c${n}`, firm: 0 });
        await w.get('SELECT COUNT(*) AS n FROM companies');
        order.push(`end ${n}`);
      })));
      for (let k = 0; k < order.length; k += 2) expect(order[k + 1]).toBe(order[k].replace('begin', 'end'));
    });

    it('stamps last-changed-on of the projects a transaction touched', async () => {
      let now = new Date('2024-01-01T00:00:00Z');
      const s = await fresh({ clock: () => now });
      const pid = await s.write(async (w) => {
        const c = await w.insert('companies', { name: 'F', firm: 1 });
        return w.insert('projects', { name: 'P', company_id: c, last_changed_on: w.now });
      });
      now = new Date('2024-02-02T10:00:00Z');
      await s.write((w) => w.insert('categories', { name: 'x', type: 'post', project_id: pid }, pid));
      expect((await s.get<{ l: string }>('SELECT last_changed_on AS l FROM projects WHERE id = ?', [pid]))!.l).toBe('2024-02-02T10:00:00Z');
      now = new Date('2024-03-03T10:00:00Z');
      await s.write(async (w) => w.touch(pid));
      expect((await s.get<{ l: string }>('SELECT last_changed_on AS l FROM projects WHERE id = ?', [pid]))!.l).toBe('2024-03-03T10:00:00Z');
    });

    it('never reuses the id of a deleted record', async () => {
      const s = await fresh();
      const a = await s.write((w) => w.insert('companies', { name: 'A', firm: 0 }));
      await s.write((w) => w.remove('companies', a));
      expect(await s.write((w) => w.insert('companies', { name: 'B', firm: 0 }))).toBe(a + 1);
    });

    it('continues after explicit ids (seed ids, restored backups) instead of colliding with them', async () => {
      const s = await fresh();
      await s.write((w) => w.insert('companies', { id: 40, name: 'A', firm: 0 }));
      expect(await s.write((w) => w.insert('companies', { name: 'B', firm: 0 }))).toBe(41);
      await s.write((w) => w.run('INSERT INTO companies (id, name, firm) VALUES (?, ?, ?)', [90, 'C', 0]));
      expect(await s.write((w) => w.insert('companies', { name: 'D', firm: 0 }))).toBe(91);
      // A lower explicit id does not move the sequence back.
      await s.write((w) => w.insert('companies', { id: 5, name: 'E', firm: 0 }));
      expect(await s.write((w) => w.insert('companies', { name: 'F', firm: 0 }))).toBe(92);
    });
  });

  describe('change token', () => {
    it('changes with every commit, also one made through another connection to the same store', async () => {
      const loc = await e.location();
      const a = await e.open(loc);
      const b = await e.open(loc);
      const t0 = await b.changeToken();
      const pid = await a.write(async (w) => w.insert('projects', { name: 'P', company_id: await w.insert('companies', { name: 'A', firm: 0 }) }));
      // SQLite samples the other connection's data_version at most once per millisecond.
      await new Promise((r) => setTimeout(r, 2));
      const t1 = await b.changeToken();
      expect(t1).not.toBe(t0);
      expect(await b.changeToken()).toBe(t1);
      await a.write(async (w) => w.touch(pid));
      await new Promise((r) => setTimeout(r, 2));
      expect(await b.changeToken()).not.toBe(t1);
    });

    it('does not change for a rolled-back transaction', async () => {
      const s = await fresh();
      const t0 = await s.changeToken();
      await s.write(async () => { throw new Error('no'); }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 2));
      expect(await s.changeToken()).toBe(t0);
    });
  });

  describe('derived data kept by the store (memo, D42)', () => {
    it('computes once per change token, again after a commit, and keeps nothing across stores', async () => {
      const a = await fresh();
      const b = await fresh();
      let calls = 0;
      const f = async () => ++calls;
      expect(await a.memo('test:k', f)).toBe(1);
      expect(await a.memo('test:k', f)).toBe(1);
      expect(await b.memo('test:k', f)).toBe(2); // another store: its own value
      await importSeed(a, FIXTURE);
      await new Promise((r) => setTimeout(r, 2));
      expect(await a.memo('test:k', f)).toBe(3);
      expect(await a.memo('test:k', f)).toBe(3);
    });

    it('does not keep a value computed while a commit happened', async () => {
      const a = await fresh();
      await importSeed(a, FIXTURE);
      let calls = 0;
      const slow = async () => { calls++; await a.write((w) => w.update('projects', 1, { name: 'Moved on' })); return calls; };
      expect(await a.memo('test:k', slow)).toBe(1);
      expect(await a.memo('test:k', async () => ++calls)).toBe(2);
    });

    it('a time-entry count follows writes by this and by another connection', async () => {
      const loc = await e.location();
      const a = await e.open(loc);
      await importSeed(a, FIXTURE);
      const b = await e.open(loc);
      const firm = { id: 1, companyId: 1, firm: true, admin: true, name: 'x' };
      const pid = Number((await a.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id);
      const n0 = await countProjectEntries(a, firm, pid);
      const add = (s: Store) => s.write((w) => w.insert('time_entries', { project_id: pid, person_id: 1, date: '2026-01-01', hours: 1, description: 'x', private: 0 }, pid));
      await add(a);
      await new Promise((r) => setTimeout(r, 2));
      expect(await countProjectEntries(a, firm, pid)).toBe(n0 + 1);
      await add(b);
      await new Promise((r) => setTimeout(r, 2)); // SQLite samples data_version at most once per millisecond
      expect(await countProjectEntries(a, firm, pid)).toBe(n0 + 2);
    });

    it('a time-entry count follows every write that adds, removes, moves or hides an entry, and no other (D228)', async () => {
      const loc = await e.location();
      const a = await e.open(loc);
      await importSeed(a, FIXTURE);
      const firm = { id: 1, companyId: 1, firm: true, admin: true, name: 'x' };
      const client = { id: 999, companyId: 999, firm: false, admin: false, name: 'c' };
      const [p1, p2] = (await a.all<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 2')).map((r) => Number(r.id));
      const person = Number((await a.get<{ id: number }>('SELECT id FROM people ORDER BY id LIMIT 1'))!.id);
      const { hidden, shown } = await a.write(async (w) => {
        const list = await w.insert('todo_lists', { project_id: p1, name: 'secret', private: 1, position: 1 }, p1);
        const open = await w.insert('todo_lists', { project_id: p1, name: 'open', private: 0, position: 2 }, p1);
        return {
          hidden: await w.insert('todo_items', { project_id: p1, todo_list_id: list, content: 'h', position: 1, completed: 0 }, p1),
          shown: await w.insert('todo_items', { project_id: p1, todo_list_id: open, content: 's', position: 1, completed: 0 }, p1),
        };
      });
      const entry = { project_id: p1, person_id: person, date: '2026-11-02', hours: 1, description: 'x', private: 0, todo_item_id: shown };
      const id = await a.write((w) => w.insert('time_entries', entry, p1));
      const counts = async () => {
        await new Promise((r) => setTimeout(r, 2)); // SQLite samples data_version at most once per millisecond
        return [await countProjectEntries(a, firm, p1), await countProjectEntries(a, client, p1), await countProjectEntries(a, firm, p2),
          await countProjectEntries(a, client, p2)];
      };
      const [f0, c0, g0, d0] = await counts();
      await a.write((w) => w.update('time_entries', id, { hours: 2, description: 'y', date: '2026-11-05', person_id: person }, p1));
      expect(await counts()).toEqual([f0, c0, g0, d0]);
      await a.write((w) => w.update('time_entries', id, { private: 1 }, p1));
      expect(await counts()).toEqual([f0, c0 - 1, g0, d0]);
      await a.write((w) => w.update('time_entries', id, { private: 0 }, p1));
      expect(await counts()).toEqual([f0, c0, g0, d0]);
      await a.write((w) => w.update('time_entries', id, { todo_item_id: hidden }, p1)); // now inside a private list
      expect(await counts()).toEqual([f0, c0 - 1, g0, d0]);
      await a.write((w) => w.update('time_entries', id, { todo_item_id: shown }, p1));
      expect(await counts()).toEqual([f0, c0, g0, d0]);
      const listOf = async (w: Writer) => Number((await w.get<{ id: number }>('SELECT todo_list_id AS id FROM todo_items WHERE id = ?', [shown]))!.id);
      await a.write(async (w) => w.update('todo_lists', await listOf(w), { private: 1 }, p1));
      expect(await counts()).toEqual([f0, c0 - 1, g0, d0]); // its list made private
      await a.write(async (w) => w.update('todo_lists', await listOf(w), { private: 0 }, p1));
      expect(await counts()).toEqual([f0, c0, g0, d0]);
      await a.write((w) => w.update('time_entries', id, { project_id: p2 }, p1));
      expect(await counts()).toEqual([f0 - 1, c0 - 1, g0 + 1, d0 + 1]);
      await a.write((w) => w.remove('time_entries', id, p2));
      expect(await counts()).toEqual([f0 - 1, c0 - 1, g0, d0]);
      await a.write((w) => w.run('INSERT INTO time_entries (project_id, person_id, date, hours, description, private) VALUES (?, ?, ?, ?, ?, ?)', [p1, person, '2026-11-02', 1, 'raw', 0]));
      expect(await counts()).toEqual([f0, c0, g0, d0]);
    });
  });

  describe('rows and comment figures kept by the store (D185)', () => {
    const firm = { id: 1, companyId: 1, firm: true, admin: true, name: 'x' };
    const client = { id: 999, companyId: 999, firm: false, admin: false, name: 'c' };
    /** A project with a list of three items and entries, through a Writer (as the services write). */
    async function setup(s: Store) {
      await importSeed(s, FIXTURE);
      const person = Number((await s.get<{ id: number }>('SELECT id FROM people ORDER BY id LIMIT 1'))!.id);
      return s.write(async (w) => {
        const pid = Number((await w.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id);
        const list = await w.insert('todo_lists', { project_id: pid, name: 'Kept', description: '', position: 99, private: 0, tracked: 0 }, pid);
        const items: number[] = [];
        for (const [k, content] of ['one', 'two', 'three'].entries()) {
          items.push(await w.insert('todo_items', { todo_list_id: list, project_id: pid, content, position: k + 1, completed: 0, creator_id: person, created_at: w.now, updated_at: w.now }, pid));
        }
        return { pid, list, items, person };
      });
    }
    const contents = async (s: Store, list: number, pid: number) => (await itemsOfList(s, firm, list, pid)).map((r) => r.content);
    const counting = (s: Store) => {
      const seen: string[] = [];
      const all = s.all.bind(s);
      s.all = (async (sql: string, p?: readonly unknown[]) => { seen.push(sql); return all(sql, p as never); }) as Store['all'];
      return seen;
    };

    it('a list read again takes its rows from the cache, and shows a write through the Writer at once', async () => {
      const s = await fresh();
      const { list, items, pid } = await setup(s);
      expect(await contents(s, list, pid)).toEqual(['one', 'two', 'three']);
      const seen = counting(s);
      expect(await contents(s, list, pid)).toEqual(['one', 'two', 'three']);
      expect(seen.filter((q) => / IN \(/.test(q) && q.includes('FROM todo_items'))).toEqual([]); // no row read by id
      await s.write((w) => w.update('todo_items', items[1], { content: 'two, edited' }, pid));
      expect(await contents(s, list, pid)).toEqual(['one', 'two, edited', 'three']);
      // A row handed out is the caller's copy: changing it changes nothing kept.
      const [first] = await itemsOfList(s, firm, list, pid);
      first.content = 'scribbled';
      expect(await contents(s, list, pid)).toEqual(['one', 'two, edited', 'three']);
    });

    it('shows a write made through another connection, also one the Writer did not make (no new version)', async () => {
      const loc = await e.location();
      const a = await e.open(loc);
      const { list, items, pid } = await setup(a);
      const b = await e.open(loc);
      expect(await contents(a, list, pid)).toEqual(['one', 'two', 'three']);
      await b.write((w) => w.update('todo_items', items[0], { content: 'one, elsewhere' }, pid));
      await new Promise((r) => setTimeout(r, 2)); // SQLite samples data_version at most once per millisecond
      expect(await contents(a, list, pid)).toEqual(['one, elsewhere', 'two', 'three']);
      // SQL text run in a write (no version given to the row): the kept rows are dropped.
      await a.write((w) => w.run('UPDATE todo_items SET content = ? WHERE id = ?', ['three, raw', items[2]]));
      await new Promise((r) => setTimeout(r, 2));
      expect(await contents(a, list, pid)).toEqual(['one, elsewhere', 'two', 'three, raw']);
    });

    it('a page of time entries follows edits, and a deleted entry leaves the page', async () => {
      const s = await fresh();
      const { pid, person } = await setup(s);
      const ids = await s.write(async (w) => {
        const out: number[] = [];
        for (let k = 0; k < 3; k++) out.push(await w.insert('time_entries', { project_id: pid, person_id: person, date: `2031-01-0${k + 1}`, hours: k + 1, description: `e${k}`, private: 0 }, pid));
        return out;
      });
      const page = async () => (await listProjectEntries(s, firm, pid, 3, 0)).map((r) => r.description);
      expect(await page()).toEqual(['e2', 'e1', 'e0']);
      await s.write((w) => w.update('time_entries', ids[1], { description: 'e1, edited' }, pid));
      expect(await page()).toEqual(['e2', 'e1, edited', 'e0']);
      await s.write((w) => w.remove('time_entries', ids[2], pid));
      expect((await page())[0]).toBe('e1, edited');
    });

    it("a list's ids and versions are kept until a commit writes its project's items (D222)", async () => {
      const s = await fresh();
      const { list, items, pid, person } = await setup(s);
      const other = await s.write(async (w) => {
        const p2 = Number((await w.get<{ id: number }>('SELECT id FROM projects WHERE id <> ? ORDER BY id LIMIT 1', [pid]))!.id);
        const l2 = await w.insert('todo_lists', { project_id: p2, name: 'Elsewhere', description: '', position: 99, private: 0, tracked: 0 }, p2);
        const i2 = await w.insert('todo_items', { todo_list_id: l2, project_id: p2, content: 'far', position: 1, completed: 0, creator_id: person, created_at: w.now, updated_at: w.now }, p2);
        return { p2, l2, i2 };
      });
      expect(await contents(s, list, pid)).toEqual(['one', 'two', 'three']);
      const seen = counting(s);
      const reads = () => seen.splice(0).filter((q) => q.includes('FROM todo_items')).length;
      expect(await contents(s, list, pid)).toEqual(['one', 'two', 'three']);
      expect(reads()).toBe(0);
      // Another project's items written: still kept on SQLite (PostgreSQL counts whole tables, D134).
      await s.write((w) => w.update('todo_items', other.i2, { content: 'far, edited' }, other.p2));
      expect(await contents(s, list, pid)).toEqual(['one', 'two', 'three']);
      expect(reads()).toBe(e.name === 'sqlite' ? 0 : 1);
      // This project's: read again, each change shown.
      await s.write((w) => w.update('todo_items', items[2], { position: 0 }, pid));
      expect(await contents(s, list, pid)).toEqual(['three', 'one', 'two']);
      expect(reads()).toBeGreaterThan(0);
      const added = await s.write((w) => w.insert('todo_items', { todo_list_id: list, project_id: pid, content: 'four', position: 9, completed: 0, creator_id: person, created_at: w.now, updated_at: w.now }, pid));
      expect(await contents(s, list, pid)).toEqual(['three', 'one', 'two', 'four']);
      // Moved in from another project, and out to it (the project changes: `todo_items@*`).
      await s.write((w) => w.update('todo_items', other.i2, { todo_list_id: list, project_id: pid, position: 10 }, pid));
      expect(await contents(s, list, pid)).toEqual(['three', 'one', 'two', 'four', 'far, edited']);
      await s.write((w) => w.update('todo_items', items[0], { todo_list_id: other.l2, project_id: other.p2 }, other.p2));
      expect(await contents(s, list, pid)).toEqual(['three', 'two', 'four', 'far, edited']);
      // Moved by its list alone, its project left as it was (as sync applies a remote move): the other
      // project's list shows it too.
      expect(await contents(s, other.l2, other.p2)).toEqual(['one']);
      await s.write((w) => w.update('todo_items', items[1], { todo_list_id: other.l2, position: 5 }, pid));
      expect(await contents(s, other.l2, other.p2)).toEqual(['one', 'two']);
      await s.write((w) => w.update('todo_items', items[1], { todo_list_id: list, position: 2 }, pid));
      expect(await contents(s, other.l2, other.p2)).toEqual(['one']);
      await s.write((w) => w.remove('todo_items', added, pid));
      expect(await contents(s, list, pid)).toEqual(['three', 'two', 'far, edited']);
      // SQL text run in a write names no project: read again.
      await s.write((w) => w.run('UPDATE todo_items SET position = -1 WHERE id = ?', [other.i2]));
      expect(await contents(s, list, pid)).toEqual(['far, edited', 'three', 'two']);
    });

    it("a client's page of time entries follows the privacy of lists and the project's members (D222)", async () => {
      const s = await fresh();
      const { pid, list, items, person } = await setup(s);
      const guest = Number((await s.get<{ id: number }>(`SELECT pe.id FROM people pe JOIN companies co ON co.id = pe.company_id
        WHERE co.firm = 0 AND pe.administrator = 0 ORDER BY pe.id LIMIT 1`))!.id);
      const them = { id: guest, companyId: 0, firm: false, admin: false, name: 'guest' };
      await s.write(async (w) => {
        await addMember(w, pid, guest);
        for (let k = 0; k < 3; k++) await w.insert('time_entries', { project_id: pid, person_id: person, todo_item_id: k === 1 ? items[0] : null, date: `2031-02-0${k + 1}`, hours: 1, description: `t${k}`, private: 0 }, pid);
      });
      const page = async () => (await listProjectEntries(s, them, pid, 50, 0)).map((r) => r.description).filter((d) => /^t\d$/.test(String(d)));
      expect(await page()).toEqual(['t2', 't1', 't0']);
      expect(await page()).toEqual(['t2', 't1', 't0']);
      await s.write((w) => w.update('todo_lists', list, { private: 1 }, pid));
      expect(await page()).toEqual(['t2', 't0']);
      await s.write((w) => w.update('todo_lists', list, { private: 0 }, pid));
      expect(await page()).toEqual(['t2', 't1', 't0']);
      await s.write((w) => removeMember(w, pid, guest));
      expect(await page()).toEqual([]);
    });

    it('every list statement whose ids are kept names each table it reads (D222)', async () => {
      const s = await fresh();
      const { pid, list } = await setup(s);
      const kept: { sql: string; tables: readonly string[] }[] = [];
      const memo = s.memo.bind(s);
      s.memo = (<T>(key: MemoKey, compute: () => Promise<T>, tables?: readonly string[]) => {
        if (key.startsWith('refs:')) kept.push({ sql: key.slice(5, key.indexOf('\u0000')), tables: tables ?? [] });
        return memo(key, compute, tables);
      }) as Store['memo'];
      const member = { id: 1, companyId: 1, firm: true, admin: false, name: 'm' };
      const clientAdmin = { id: 1, companyId: 1, firm: false, admin: true, name: 'ca' };
      for (const c of [firm, client, member, clientAdmin]) {
        await itemsOfList(s, c, list, pid);
        await listProjectEntries(s, c, pid, 50, 0);
        await listPosts(s, c, pid, { limit: 25, offset: 0 });
        await listPosts(s, c, pid, { categoryId: 1, limit: 25, offset: 25 });
      }
      expect(new Set(kept.map((k) => k.sql.slice(0, 40))).size).toBeGreaterThanOrEqual(3);
      for (const { sql, tables } of kept) {
        const read = [...sql.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)/gi)].map((m) => m[1]);
        expect(read.length).toBeGreaterThan(0);
        for (const t of read) expect(tables.some((n) => n === t || n.startsWith(`${t}@`)), `${t} in ${sql}`).toBe(true);
      }
    });

    it('comment counts follow new, private and deleted comments, for firm people and clients alike', async () => {
      const s = await fresh();
      const { pid, items, list, person } = await setup(s);
      const counts = async (c: typeof firm) => (await withCommentStats(s, c, 'TodoItem', await itemsOfList(s, firm, list, pid))).map((r) => r.comments_count);
      expect(await counts(firm)).toEqual([0, 0, 0]);
      expect(await counts(client)).toEqual([0, 0, 0]);
      const comment = (priv: number) => s.write((w) => w.insert('comments', { commentable_type: 'TodoItem', commentable_id: items[1], project_id: pid, author_id: person, body: 'b', private: priv, created_at: w.now }, pid));
      await comment(0);
      const hidden = await comment(1);
      expect(await counts(firm)).toEqual([0, 2, 0]);
      expect(await counts(client)).toEqual([0, 1, 0]);
      // Read again: no counting query.
      const seen = counting(s);
      expect(await counts(firm)).toEqual([0, 2, 0]);
      expect(seen.filter((q) => q.includes('COUNT(*) AS n'))).toEqual([]);
      await s.write((w) => w.remove('comments', hidden, pid));
      expect(await counts(firm)).toEqual([0, 1, 0]);
      expect(await counts(client)).toEqual([0, 1, 0]);
    });
    it('comment figures follow comments on other types, edits, privacy, time, deletes and SQL text (D230)', async () => {
      const s = await fresh();
      const { pid, items, list, person } = await setup(s);
      const post = await s.write((w) => w.insert('posts', { project_id: pid, title: 'P', body: 'b', author_id: person, private: 0, posted_on: w.now }, pid));
      const figures = async (c: typeof firm) => (await withCommentStats(s, c, 'TodoItem', await itemsOfList(s, firm, list, pid))).map((r) => [r.comments_count, r.commented_at]);
      const postFigures = async () => (await withCommentStats(s, firm, 'Post', [{ id: post, project_id: pid } as Record<string, unknown>])).map((r) => r.comments_count);
      const add = (type: string, id: number, at: string) => s.write((w) => w.insert('comments', { commentable_type: type, commentable_id: id, project_id: pid, author_id: person, body: 'b', private: 0, created_at: at }, pid));
      const c1 = await add('TodoItem', items[0], '2026-01-01T00:00:00Z');
      expect(await figures(firm)).toEqual([[1, '2026-01-01T00:00:00Z'], [0, null], [0, null]]);
      expect(await postFigures()).toEqual([0]);
      // A comment on a post: the post's figures follow, the items' stay what they are.
      await add('Post', post, '2026-01-02T00:00:00Z');
      expect(await postFigures()).toEqual([1]);
      expect(await figures(firm)).toEqual([[1, '2026-01-01T00:00:00Z'], [0, null], [0, null]]);
      // An edited body changes nothing; privacy, time and a delete do.
      await s.write((w) => w.update('comments', c1, { body: 'edited' }, pid));
      expect(await figures(client)).toEqual([[1, '2026-01-01T00:00:00Z'], [0, null], [0, null]]);
      await s.write((w) => w.update('comments', c1, { private: 1 }, pid));
      expect(await figures(client)).toEqual([[0, null], [0, null], [0, null]]);
      expect(await figures(firm)).toEqual([[1, '2026-01-01T00:00:00Z'], [0, null], [0, null]]);
      await s.write((w) => w.update('comments', c1, { created_at: '2026-03-01T00:00:00Z' }, pid));
      expect(await figures(firm)).toEqual([[1, '2026-03-01T00:00:00Z'], [0, null], [0, null]]);
      await s.write((w) => w.remove('comments', c1, pid));
      expect(await figures(firm)).toEqual([[0, null], [0, null], [0, null]]);
      // A comment written by SQL text, and one whose project the Writer was not given (its row names it).
      await s.write((w) => w.run("INSERT INTO comments (commentable_type, commentable_id, project_id, author_id, body, private, created_at) VALUES ('TodoItem', ?, ?, ?, 'sql', 0, '2026-04-01T00:00:00Z')", [items[2], pid, person]));
      expect(await figures(firm)).toEqual([[0, null], [0, null], [1, '2026-04-01T00:00:00Z']]);
      await s.write((w) => w.insert('comments', { commentable_type: 'TodoItem', commentable_id: items[1], project_id: pid, author_id: person, body: 'b', private: 0, created_at: '2026-05-01T00:00:00Z' }));
      expect(await figures(firm)).toEqual([[0, null], [1, '2026-05-01T00:00:00Z'], [1, '2026-04-01T00:00:00Z']]);
    });
  });

  it('is reachable while open', async () => {
    const s = await fresh();
    expect(await s.reachable()).toBe(true);
  });
});

describe('sqlite specifics', () => {
  it('uses the indexes for the hot queries', async () => {
    const s = new SqliteStore(':memory:');
    const plan = (sql: string) => (s.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan("SELECT * FROM time_entries WHERE person_id = 1 AND date BETWEEN '2024-01-01' AND '2024-01-31'")).toMatch(/time_entries_person/);
    expect(plan('SELECT * FROM todo_items WHERE todo_list_id = 1 ORDER BY position')).toMatch(/todo_items_list/);
    expect(plan("SELECT COUNT(*) FROM comments WHERE commentable_type = 'Post' AND commentable_id = 3")).toMatch(/comments_parent/);
    await s.close();
  });

  it('reads of one turn share a read transaction that a write ends; statements of their own commit at once (D186)', async () => {
    const file = join(tmp(), 'db.sqlite');
    const a = new SqliteStore(file);
    const b = new SqliteStore(file);
    try {
      await importSeed(a, FIXTURE);
      const name = async (s: SqliteStore) => (await s.get<{ name: string }>('SELECT name FROM projects ORDER BY id LIMIT 1'))!.name;
      const first = await name(a);
      expect(a.db.isTransaction).toBe(true); // the read transaction of this turn
      // The store's own write ends it and shows at once, in the same turn.
      await a.write((w) => w.update('projects', 1, { name: 'Renamed here' }));
      expect(await name(a)).toBe('Renamed here');
      // SQL text run on its own commits before it returns: another connection sees it right away.
      await a.run('UPDATE projects SET name = ? WHERE id = 1', ['Run on its own']);
      expect(a.db.isTransaction).toBe(false);
      expect(await name(b)).toBe('Run on its own');
      // Another connection's commit shows from the next turn on.
      expect(await name(a)).toBe('Run on its own');
      await b.write((w) => w.update('projects', 1, { name: 'Renamed there' }));
      await new Promise((r) => setImmediate(r));
      expect(await name(a)).toBe('Renamed there');
      await new Promise((r) => setImmediate(r));
      expect(a.db.isTransaction).toBe(false); // nothing is left open between turns
      expect(first).not.toBe('Renamed there');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a derived value computed while another request\'s write is open is of the committed state: kept on a file, not in memory (D215)', async () => {
    for (const loc of [join(tmp(), 'db.sqlite'), ':memory:']) {
      const s = new SqliteStore(loc);
      try {
        await importSeed(s, FIXTURE);
        const id = Number((await s.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id);
        const committed = (await s.get<{ name: string }>('SELECT name FROM projects WHERE id = ?', [id]))!.name;
        let calls = 0;
        const name = () => s.memo('test:k', async () => { calls++; return (await s.get<{ name: string }>('SELECT name FROM projects WHERE id = ?', [id]))!.name; }, ['projects']);
        let opened!: () => void;
        const open = new Promise<void>((r) => { opened = r; });
        const failing = s.write(async (w) => {
          await w.update('projects', id, { name: 'Never committed' });
          opened();
          await new Promise((r) => setTimeout(r, 5));
          throw new Error('rolled back');
        });
        await open;
        if (loc === ':memory:') {
          // One connection: the read sees the open write, so what it computes serves this caller only.
          expect(await name()).toBe('Never committed');
          await name();
          expect(calls).toBe(2);
        } else {
          expect(await name()).toBe(committed);
          expect(await name()).toBe(committed);
          expect(calls).toBe(1);
        }
        await expect(failing).rejects.toThrow('rolled back');
        const before = calls;
        expect(await name()).toBe(committed);
        expect(await name()).toBe(committed);
        expect(calls - before).toBe(loc === ':memory:' ? 1 : 0); // kept once no write is open
        await s.write((w) => w.update('projects', id, { name: 'Renamed' }));
        expect(await name()).toBe('Renamed');
      } finally {
        await s.close();
      }
    }
  });

  it('opens in WAL mode with foreign keys on', async () => {
    const s = new SqliteStore(join(tmp(), 'db.sqlite'));
    expect((await s.get<{ journal_mode: string }>('PRAGMA journal_mode'))!.journal_mode).toBe('wal');
    expect((await s.get<{ foreign_keys: number }>('PRAGMA foreign_keys'))!.foreign_keys).toBe(1);
    expect(tables('postgres')[0].columns[0].ddl).toMatch(/GENERATED BY DEFAULT AS IDENTITY/);
    await s.close();
  });
});

describe('derived data scoped to tables (D44)', () => {
  it('survives writes to other tables, is recomputed after a write to its tables, and after SQL text run in a write', async () => {
    const a = new SqliteStore(':memory:');
    await importSeed(a, FIXTURE);
    let calls = 0;
    const f = async () => ++calls;
    const names = () => a.memo('names', f, ['people', 'companies']);
    expect(await names()).toBe(1);
    await a.write((w) => w.update('projects', 1, { name: 'Elsewhere' }));
    expect(await names()).toBe(1); // projects changed, not people
    expect(await a.memo('test:all', f)).toBe(2); // without tables: any commit counts
    await a.write((w) => w.update('people', 1, { first_name: 'Renamed' }));
    expect(await names()).toBe(3);
    await a.write((w) => w.run('UPDATE companies SET name = ? WHERE id = ?', ['Renamed Co', 1]));
    expect(await names()).toBe(4); // SQL text may touch any table
    await a.close();
  });

  it('a type\'s comment figures are read again only after a write that can change them (D230)', async () => {
    const a = new SqliteStore(':memory:');
    await importSeed(a, FIXTURE);
    const firm = { id: 1, companyId: 1, firm: true, admin: true, name: 'firm' };
    const pid = Number((await a.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id);
    const other = Number((await a.get<{ id: number }>('SELECT id FROM projects WHERE id <> ? ORDER BY id LIMIT 1', [pid]))!.id);
    const person = Number((await a.get<{ id: number }>('SELECT id FROM people ORDER BY id LIMIT 1'))!.id);
    const [item, post, otherItem] = await a.write(async (w) => {
      const list = await w.insert('todo_lists', { project_id: pid, name: 'L', description: '', position: 99, private: 0, tracked: 0 }, pid);
      const otherList = await w.insert('todo_lists', { project_id: other, name: 'L', description: '', position: 99, private: 0, tracked: 0 }, other);
      return [
        await w.insert('todo_items', { todo_list_id: list, project_id: pid, content: 'i', position: 1, completed: 0, creator_id: person, created_at: w.now, updated_at: w.now }, pid),
        await w.insert('posts', { project_id: pid, title: 'P', body: 'b', author_id: person, private: 0, posted_on: w.now }, pid),
        await w.insert('todo_items', { todo_list_id: otherList, project_id: other, content: 'i', position: 1, completed: 0, creator_id: person, created_at: w.now, updated_at: w.now }, other),
      ];
    });
    let reads = 0;
    const allCommitted = a.allCommitted.bind(a);
    a.allCommitted = (async (...args: Parameters<typeof allCommitted>) => { if (/COUNT\(\*\) AS n/.test(args[0])) reads++; return allCommitted(...args); }) as typeof a.allCommitted;
    const figures = async () => (await withCommentStats(a, firm, 'TodoItem', [{ id: item, project_id: pid } as Record<string, unknown>]))[0].comments_count;
    const comment = (type: string, id: number, project = pid) => a.write((w) => w.insert('comments', { commentable_type: type, commentable_id: id, project_id: project, author_id: person, body: 'b', private: 0, created_at: w.now }, project));
    expect(await figures()).toBe(0);
    expect(reads).toBe(1);
    await figures();
    expect(reads).toBe(1); // kept
    // Kept through a comment on a post of the project, on an item of another project, and an edited body.
    await comment('Post', post);
    await comment('TodoItem', otherItem, other);
    const mine = await comment('TodoItem', item);
    expect(await figures()).toBe(1);
    expect(reads).toBe(2); // the item's own comment
    await comment('Post', post);
    await comment('TodoItem', otherItem, other);
    await a.write((w) => w.update('comments', mine, { body: 'edited' }, pid));
    expect(await figures()).toBe(1);
    expect(reads).toBe(2);
    // Read again after what may change a figure: privacy, a delete, SQL text.
    await a.write((w) => w.update('comments', mine, { private: 1 }, pid));
    expect(await figures()).toBe(1); // the firm sees private comments
    expect(reads).toBe(3);
    await a.write((w) => w.remove('comments', mine, pid));
    expect(await figures()).toBe(0);
    expect(reads).toBe(4);
    await a.write((w) => w.run('UPDATE comments SET body = body WHERE id = 0'));
    await figures();
    expect(reads).toBe(5);
    await a.close();
  });

  it('a project\'s time-entry count survives writes to another project\'s entries (D134)', async () => {
    const a = new SqliteStore(':memory:');
    await importSeed(a, FIXTURE);
    const firm = { id: 1, companyId: 1, firm: true, admin: true, name: 'firm' };
    const [p1, p2] = (await a.all<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 2')).map((r) => Number(r.id));
    const person = Number((await a.get<{ id: number }>('SELECT id FROM people ORDER BY id LIMIT 1'))!.id);
    const entry = (project: number) => ({ project_id: project, person_id: person, date: '2026-11-02', hours: 1, description: 'x', private: 0, todo_item_id: null });
    const ids = await a.write(async (w) => [await w.insert('time_entries', entry(p1), p1), await w.insert('time_entries', entry(p2), p2)]);
    let reads = 0;
    const get = a.get.bind(a);
    a.get = (async (...args: Parameters<typeof get>) => { if (/COUNT\(\*\) AS n FROM time_entries/.test(args[0])) reads++; return get(...args); }) as typeof a.get;
    const counts = async () => [await countProjectEntries(a, firm, p1), await countProjectEntries(a, firm, p2)];
    expect(await counts()).toEqual([1, 1]);
    expect(reads).toBe(2);
    await counts();
    expect(reads).toBe(2); // kept
    // A write to project 1's entries: project 2's count is still kept, project 1's is read again.
    await a.write((w) => w.insert('time_entries', entry(p1), p1));
    expect(await counts()).toEqual([2, 1]);
    expect(reads).toBe(3);
    // An edit that changes no entry's project, privacy or todo item cannot change a count (D228): kept.
    await a.write((w) => w.update('time_entries', ids[1], { hours: 3, description: 'y', date: '2026-11-03' }, p2));
    expect(await counts()).toEqual([2, 1]);
    expect(reads).toBe(3);
    await a.write((w) => w.remove('time_entries', ids[0], p1));
    expect(await counts()).toEqual([1, 1]);
    expect(reads).toBe(4);
    // A write that moves an entry drops every project's count (its new project may be any).
    await a.write((w) => w.update('time_entries', ids[1], { project_id: p1 }, p2));
    expect(await counts()).toEqual([2, 0]);
    expect(reads).toBe(6);
    // A plain edit whose project the writer did not say is kept too; one that may hide an entry is not.
    await a.write((w) => w.update('time_entries', ids[1], { hours: 2 }, undefined));
    await counts();
    expect(reads).toBe(6);
    await a.write((w) => w.update('time_entries', ids[1], { private: 1 }, undefined));
    await counts();
    expect(reads).toBe(8);
    await a.write((w) => w.update('time_entries', ids[1], { todo_item_id: null }, p1));
    await counts();
    expect(reads).toBe(9);
    // SQL text may touch any row of any table.
    await a.write((w) => w.run('DELETE FROM time_entries WHERE id = ?', [ids[1]]));
    expect(await counts()).toEqual([1, 0]);
    expect(reads).toBe(11);
    await a.close();
  });

  it('names in records follow a rename at once (creator, responsible party, author)', async () => {
    const h = await harness();
    const { project, person } = await fx(h);
    const list = locId(await h.req('ada', 'POST', `/projects/${project.alpha}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>'));
    const item = locId(await h.req('ada', 'POST', `/todo_lists/${list}/todo_items.xml`,
      `<todo-item><content>x</content><responsible-party>${person.ada}</responsible-party></todo-item>`));
    const names = async () => {
      const one = (await h.req('ada', 'GET', `/todo_items/${item}.xml`)).xml();
      const many = (await h.req('ada', 'GET', `/todo_lists/${list}/todo_items.xml`)).xml().children[0];
      return [text(one, 'creator-name'), text(one, 'responsible-party-name'), text(many, 'creator-name'), text(many, 'responsible-party-name')];
    };
    const before = await names();
    expect(new Set(before).size).toBe(1);
    await h.store.write((w) => w.update('people', person.ada, { first_name: 'Augusta' }));
    const after = await names();
    expect(after.every((n) => n === `Augusta ${before[0]!.split(' ').slice(1).join(' ')}`)).toBe(true);
    await h.close();
  });
});
