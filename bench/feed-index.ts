// node bench/feed-index.ts — what one index of the change feed costs every write (D216), side by side.
// Two copies of a dataset (DIR, default bench/profile.ts's at /tmp/prof-data: `node bench/profile.ts
// --data-dir /tmp/prof-data` makes it): `without` as this tree leaves it (migration 22 dropped
// changes_person), `with` the index put back. In alternating rounds (ROUNDS, default 4), N writes each
// (default 300) of what a user does — a todo item's text, a new comment on a post, a time entry's hours,
// on different records — through the services, the WAL checkpointed away first and not during the round:
// WAL pages written per write (its growth / page + frame header) and CPU per write (process.cpuUsage).

import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../electron/store/sqlite.ts';
import * as items from '../electron/service/todo-items.ts';
import * as comments from '../electron/service/comments.ts';
import * as entries from '../electron/service/time-entries.ts';
import { parseXml } from '../shared/codec/in.ts';

const src = join(process.env.DIR ?? '/tmp/prof-data', 'bivouac.sqlite');
const N = Number(process.env.N ?? 300);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const FRAME = 4096 + 24;

interface Side { name: string; store: SqliteStore; dir: string; pages: number[]; cpu: number[] }
/** Every copy made, removed in any case when the bench ends (a failure included: each is a copy of the whole dataset). */
const copies: string[] = [];
process.once('exit', () => {
  for (const d of copies) try { rmSync(d, { recursive: true, force: true }); } catch (e) { console.error(`left ${d}: ${(e as Error).message}`); }
});
for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.once(sig, () => process.exit(code)); // through 'exit' above
function open(name: string, withIndex: boolean): Side {
  const dir = mkdtempSync(join(tmpdir(), `bv-feedix-${name}-`));
  copies.push(dir);
  copyFileSync(src, join(dir, 'bivouac.sqlite'));
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'), { checkpoints: false });
  store.db.exec('PRAGMA wal_autocheckpoint = 0');
  if (withIndex) store.db.exec('CREATE INDEX IF NOT EXISTS changes_person ON changes (person_id)');
  return { name, store, dir, pages: [], cpu: [] };
}

const sides = [open('without', false), open('with', true)];
const ids = async (s: SqliteStore, sql: string) => (await s.all<{ id: number }>(sql)).map((r) => Number(r.id));
const pool = {
  items: await ids(sides[0].store, 'SELECT id FROM todo_items ORDER BY random() LIMIT 5000'),
  posts: await ids(sides[0].store, 'SELECT id FROM posts WHERE private = 0 ORDER BY random() LIMIT 2000'),
  entries: await ids(sides[0].store, 'SELECT id FROM time_entries ORDER BY random() LIMIT 5000'),
};
const admin = (await sides[0].store.get<{ id: number; company_id: number }>('SELECT id, company_id FROM people WHERE administrator = 1 ORDER BY id LIMIT 1'))!;
const caller = { id: Number(admin.id), companyId: Number(admin.company_id), firm: true, admin: true, name: 'bench' };

async function round(side: Side, r: number): Promise<void> {
  const ctx = { store: side.store, caller } as never;
  await new Promise((r) => setImmediate(r)); // the store's read transaction of this turn ends (D186)
  side.store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const wal = () => { try { return statSync(join(side.dir, 'bivouac.sqlite-wal')).size; } catch { return 0; } };
  const w0 = wal();
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const k = r * N + i;
    if (i % 3 === 0) await items.update(ctx, pool.items[k % pool.items.length], parseXml(`<todo-item><content>Edit ${k}</content></todo-item>`));
    else if (i % 3 === 1) await comments.create(ctx, 'Post', pool.posts[k % pool.posts.length], parseXml(`<comment><body>Comment ${k}</body></comment>`));
    else await entries.update(ctx, pool.entries[k % pool.entries.length], parseXml(`<time-entry><hours>${1 + (k % 8) / 4}</hours></time-entry>`));
  }
  const c = process.cpuUsage(c0);
  side.pages.push((wal() - w0) / FRAME / N);
  side.cpu.push((c.user + c.system) / N);
}

for (let r = 0; r < ROUNDS; r++) for (const s of r % 2 ? [...sides].reverse() : sides) await round(s, r);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const s of sides) {
  console.log(`${s.name.padEnd(8)} changes_person: WAL pages per write ${median(s.pages).toFixed(1)} (rounds ${s.pages.map((x) => x.toFixed(1)).join(', ')}), CPU ${median(s.cpu).toFixed(0)} µs per write (rounds ${s.cpu.map((x) => x.toFixed(0)).join(', ')})`);
}
console.log(`ratio without/with: pages ${(median(sides[0].pages) / median(sides[1].pages)).toFixed(2)}, CPU ${(median(sides[0].cpu) / median(sides[1].cpu)).toFixed(2)}`);
for (const s of sides) await s.store.close();
