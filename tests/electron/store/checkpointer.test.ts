// WAL checkpoints in a worker thread (D180): the store's connection never checkpoints inside a COMMIT,
// the WAL stays bounded (counted in frames from the WAL file's size: SQLite never shrinks the file, it
// rewinds the log to its start, so the size is the log's high-water mark), no write is lost, and the
// store goes back to SQLite's automatic checkpoint when the worker cannot run.

import { afterEach, describe, expect, it } from 'vitest';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { spawnSync } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import type { CheckpointerOptions } from '../../../electron/store/checkpointer.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { FIXTURE } from '../../support/helpers.ts';

const dirs: string[] = [];
const opened: SqliteStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'bivouac-ckpt-'));
  dirs.push(d);
  return d;
}

function open(path: string, checkpoints?: CheckpointerOptions | false): SqliteStore {
  const s = new SqliteStore(path, { checkpoints });
  opened.push(s);
  return s;
}

/** A seeded database file, closed (SQLite's close checkpoints it and removes the WAL): every test starts with no log. */
async function seededFile(): Promise<string> {
  const path = join(tmp(), 'db.sqlite');
  const s = new SqliteStore(path);
  await importSeed(s, FIXTURE);
  await s.close();
  return path;
}

/** Frames the WAL file has room for: the log's high-water mark since the file was created. */
function walFrames(path: string): number {
  const page = 4096;
  try {
    return Math.max(0, (statSync(`${path}-wal`).size - 32) / (page + 24));
  } catch {
    return 0;
  }
}

/** A typical small write: a comment (its row, the feed, the indexes, the project's last_changed_on). */
async function comment(s: SqliteStore, i: number): Promise<void> {
  const p = s.getSync<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1')!.id;
  await s.write(async (w) => {
    await w.insert('comments', { commentable_type: 'Post', commentable_id: 1, author_id: 1, project_id: p, body: `comment ${i} ${'x'.repeat(300)}`, created_at: w.now }, p);
  });
}

const count = (s: SqliteStore): number => s.getSync<{ n: number }>('SELECT count(*) AS n FROM comments')!.n;
const autocheckpoint = (s: SqliteStore): number => s.getSync<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint')!.wal_autocheckpoint;
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Frames in the log now: `mxFrame` of the wal-index header, the first bytes of the `-shm` file (a u32 at
 * offset 16 in the machine's byte order; https://www.sqlite.org/walformat.html §2.1). 0 when there is none.
 */
function logFrames(path: string): number {
  let fd: number;
  try {
    fd = openSync(`${path}-shm`, 'r');
  } catch {
    return 0;
  }
  try {
    const b = Buffer.alloc(48);
    return readSync(fd, b, 0, 48, 0) === 48 ? (endianness() === 'LE' ? b.readUInt32LE(16) : b.readUInt32BE(16)) : 0;
  } finally {
    closeSync(fd);
  }
}

/** Writes `n` comments through `write`, counting the frames each appends and the times the log was rewound. */
async function writeMany(path: string, n: number, write: (i: number) => Promise<void>): Promise<{ most: number; rewinds: number }> {
  let most = 0;
  let rewinds = 0;
  for (let i = 0; i < n; i++) {
    const before = logFrames(path);
    await write(i);
    const after = logFrames(path);
    if (after < before) rewinds++;
    most = Math.max(most, after < before ? after : after - before);
  }
  return { most, rewinds };
}

async function until(what: () => boolean, turns = 200_000): Promise<void> {
  for (let i = 0; i < turns && !what(); i++) await (i < 1000 ? turn() : sleep(1));
  expect(what()).toBe(true);
}

describe('WAL checkpoints in a worker thread (D180)', () => {
  it('turns off the checkpoint inside COMMIT on disk only', async () => {
    const s = open(await seededFile());
    expect(autocheckpoint(s)).toBe(0);
    expect(s.checkpointer).not.toBeNull();
    const m = open(':memory:');
    expect(m.checkpointer).toBeNull();
    const off = open(join(tmp(), 'off.sqlite'), false);
    expect(off.checkpointer).toBeNull();
    expect(autocheckpoint(off)).toBe(1000);
  });

  it('counts a statement run on its own right after a read of the same turn as a write (D186)', async () => {
    const path = await seededFile();
    const s = open(path, { gateAfter: 100 });
    for (let i = 0; i < 300; i++) {
      await s.get('SELECT id FROM projects ORDER BY id LIMIT 1'); // opens the turn's read transaction
      await s.run('UPDATE projects SET name = ? WHERE id = (SELECT MIN(id) FROM projects)', [`n${i}`]);
    }
    // Counted writes wake the worker, which checkpoints them; uncounted ones would leave it asleep.
    await until(() => s.checkpointer!.stats().passes > 0, 3000);
  });

  it('wakes the worker only when it has a pass to run, not after every write (D229)', async () => {
    const every = 8;
    const s = open(await seededFile(), { every });
    for (let i = 0; i < every - 1; i++) await comment(s, i);
    expect(s.checkpointer!.stats().rings).toBe(0);
    await comment(s, every);
    expect(s.checkpointer!.stats().rings).toBe(1);
    await until(() => s.checkpointer!.stats().passes > 0, 3000);
    // 10 passes' worth of writes: about one wake-up each, not one per write, and the passes go on.
    await until(() => !s.checkpointer!.stats().running, 3000);
    const before = s.checkpointer!.stats();
    for (let i = 0; i < 10 * every; i++) { await comment(s, i); if (i % every === 0) await sleep(5); }
    const rang = s.checkpointer!.stats().rings - before.rings;
    expect(rang).toBeGreaterThanOrEqual(5);
    expect(rang).toBeLessThan(5 * every);
    await until(() => s.checkpointer!.stats().passes >= before.passes + 5, 5000);
  });

  it('keeps passing and bounding the WAL when the write counter wraps past 2^31 (D229)', async () => {
    const gateAfter = 10;
    const path = await seededFile();
    const s = open(path, { gateAfter, every: 4, firstCount: 2 ** 31 - 40 });
    const { most, rewinds } = await writeMany(path, 200, (i) => comment(s, i));
    const st = s.checkpointer!.stats();
    expect(st.failed).toBe(false);
    expect(st.passes).toBeGreaterThan(20);
    expect(st.gated).toBeGreaterThan(5);
    expect(rewinds).toBeGreaterThanOrEqual(Math.floor(200 / (gateAfter + 1)) - 1);
    expect(walFrames(path)).toBeLessThanOrEqual((gateAfter + 1) * most);
  }, 60_000);

  it('publishes each wait of the gate on bivouac:checkpoint-gate, begun and ended in turn (D229)', async () => {
    const seen: boolean[] = [];
    const listen = (m: unknown) => { seen.push((m as { waiting: boolean }).waiting); };
    subscribe('bivouac:checkpoint-gate', listen);
    try {
      const s = open(await seededFile(), { gateAfter: 10, every: 1000 }); // passes only when a write waits
      for (let i = 0; i < 60; i++) await comment(s, i);
      const gated = s.checkpointer!.stats().gated;
      expect(gated).toBeGreaterThanOrEqual(4);
      expect(seen.length).toBe(2 * gated);
      seen.forEach((waiting, k) => expect(waiting).toBe(k % 2 === 0));
    } finally {
      unsubscribe('bivouac:checkpoint-gate', listen);
    }
  });

  it('keeps the WAL bounded under a burst of writes back to back (never yielding to the event loop)', async () => {
    const gateAfter = 100;
    const path = await seededFile();
    const s = open(path, { gateAfter });
    const { most, rewinds } = await writeMany(path, 3000, (i) => comment(s, i));
    // 3,000 writes of up to `most` frames each; the log was rewound at least every `gateAfter` writes.
    expect(rewinds).toBeGreaterThanOrEqual(Math.floor(3000 / (gateAfter + 1)) - 1);
    expect(walFrames(path)).toBeGreaterThan(0);
    expect(walFrames(path)).toBeLessThanOrEqual((gateAfter + 1) * most);
    const st = s.checkpointer!.stats();
    expect(st.failed).toBe(false);
    expect(st.passes).toBeGreaterThan(0);
    expect(count(s)).toBe(3000 + fixtureComments(s));
  }, 60_000);

  it('keeps the WAL bounded under steady writes (the event loop turns between them)', async () => {
    const gateAfter = 30;
    const path = await seededFile();
    const s = open(path, { gateAfter, every: 4 });
    const { most, rewinds } = await writeMany(path, 1500, async (i) => {
      await comment(s, i);
      await (i % 2 ? turn() : sleep(1));
    });
    expect(rewinds).toBeGreaterThanOrEqual(Math.floor(1500 / (gateAfter + 1)) - 1);
    expect(walFrames(path)).toBeLessThanOrEqual((gateAfter + 1) * most);
    expect(s.checkpointer!.stats().failed).toBe(false);
  }, 60_000);

  it('loses no write across close and reopen, and a closed store leaves no worker behind', async () => {
    const path = await seededFile();
    const before = (() => { const s = new DatabaseSync(path); const n = (s.prepare('SELECT count(*) AS n FROM comments').get() as { n: number }).n; s.close(); return n; })();
    for (let round = 0; round < 3; round++) {
      const s = new SqliteStore(path);
      for (let i = 0; i < 400; i++) await comment(s, i);
      await s.close();
      expect(s.checkpointer!.stats().running).toBe(false);
    }
    const again = open(path);
    expect(count(again)).toBe(before + 1200);
  }, 60_000);

  it('closes while a checkpoint pass runs, and the data is whole', async () => {
    const path = await seededFile();
    const s = new SqliteStore(path, { checkpoints: { every: 1 } });
    let n = 0;
    // Write until a pass is seen under way (each write wakes the worker), then close at once.
    for (let tries = 0; tries < 20_000 && !s.checkpointer!.stats().running; tries++) {
      await comment(s, n++);
      await turn();
    }
    expect(s.checkpointer!.stats().running).toBe(true);
    await s.close();
    const db = new DatabaseSync(path);
    expect((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check).toBe('ok');
    expect((db.prepare("SELECT count(*) AS n FROM comments WHERE body LIKE 'comment %'").get() as { n: number }).n).toBe(n);
    db.close();
  }, 60_000);

  it('falls back to SQLite\'s automatic checkpoint when the worker cannot start', async () => {
    const path = await seededFile();
    const s = open(path, { workerUrl: new URL('../../fixtures/no-such-worker.ts', import.meta.url) });
    await comment(s, 0); // the worker starts with the first write
    await until(() => s.checkpointer!.stats().failed);
    expect(autocheckpoint(s)).toBe(1000);
    const { most, rewinds } = await writeMany(path, 1499, (i) => comment(s, i + 1));
    // SQLite's own checkpoint at 1,000 frames, inside a COMMIT: the next write rewinds the log.
    expect(rewinds).toBeGreaterThan(0);
    expect(walFrames(path)).toBeLessThanOrEqual(1000 + most);
    expect(count(s)).toBe(1500 + fixtureComments(s));
  }, 60_000);

  it('falls back when the worker dies, and no write waits for it forever', async () => {
    const path = await seededFile();
    const s = open(path, { gateAfter: 10 });
    await comment(s, 0);
    // The worker thread ends under the store (as if it crashed).
    const worker = (s.checkpointer as unknown as { worker: { terminate(): Promise<number> } }).worker;
    await worker.terminate();
    await until(() => s.checkpointer!.stats().failed);
    expect(autocheckpoint(s)).toBe(1000);
    for (let i = 1; i < 200; i++) await comment(s, i); // past gateAfter: no write waits for the dead worker
    expect(count(s)).toBe(200 + fixtureComments(s));
  }, 60_000);

  it('another connection on the file (another process) keeps reading and writing; an old snapshot held open delays no write for ever', async () => {
    const path = await seededFile();
    const s = open(path, { gateAfter: 20 });
    const other = new DatabaseSync(path);
    other.exec('PRAGMA busy_timeout = 5000');
    const base = count(s);
    // A reader in the other connection holds its snapshot: no checkpoint may copy past it, the log cannot be rewound.
    other.exec('BEGIN');
    expect((other.prepare('SELECT count(*) AS n FROM comments').get() as { n: number }).n).toBe(base);
    for (let i = 0; i < 200; i++) await comment(s, i);
    expect((other.prepare('SELECT count(*) AS n FROM comments').get() as { n: number }).n).toBe(base);
    other.exec('COMMIT');
    // The other connection writes too, between the store's writes.
    for (let i = 0; i < 50; i++) {
      other.prepare("INSERT INTO comments (commentable_type, commentable_id, author_id, project_id, body, created_at) SELECT 'Post', 1, 1, id, 'other', '2026-01-01T00:00:00Z' FROM projects ORDER BY id LIMIT 1").run();
      await comment(s, 1000 + i);
    }
    expect(count(s)).toBe(base + 300);
    // Once the reader is gone the log is rewound again: it stops growing.
    const high = walFrames(path);
    for (let i = 0; i < 400; i++) await comment(s, 2000 + i);
    expect(walFrames(path)).toBe(high);
    other.close();
  }, 60_000);

  it('never keeps the process alive: a script that writes and does not close its store exits', () => {
    const script = writingScript(tmp(), "console.log('written', s.checkpointer.stats().failed);");
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('written false');
  }, 40_000);

  // A team server is often started with V8's heap options (`node --max-old-space-size=4096 …`). A Worker given
  // those in `execArgv` refuses to start (ERR_WORKER_INVALID_EXEC_ARGV): the store fell back to checkpointing in
  // the request thread, silently (D233).
  it.each([
    ['a V8 option', ['--max-old-space-size=512', '--max-semi-space-size=32']],
    ['a V8 option and a script given with -e', ['--stack-size=900', '--input-type=module']],
  ])('starts its worker when the process was given %s', (_name, flags) => {
    const dir = tmp();
    const script = writingScript(dir, "console.log('failed', s.checkpointer.stats().failed); await s.close();");
    const viaFile = !flags.includes('--input-type=module');
    const file = join(dir, 'script.mjs');
    if (viaFile) writeFileSync(file, script);
    const r = spawnSync(process.execPath, viaFile ? [...flags, file] : [...flags, '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('failed false');
    expect(r.status).toBe(0);
  }, 40_000);

  it('warns once on stderr when the worker cannot start (the store then checkpoints in the request thread)', () => {
    const script = writingScript(tmp(), "await s.close(); console.log('done', s.checkpointer.stats().failed);",
      "{ checkpoints: { workerUrl: new URL('file:///nonexistent/worker.ts') } }");
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout.trim()).toBe('done true');
    expect(r.stderr.match(/checkpoint worker/g)?.length).toBe(1);
    expect(r.stderr).toMatch(/\[BIVOUAC_CHECKPOINT_WORKER\] Warning: the SQLite checkpoint worker failed .*checkpoints run in the request thread/s);
  }, 40_000);
});

/**
 * A script (ES module text) that opens a SqliteStore in `dir` with `options` (source text), writes 100 rows one
 * transaction each, waits for the checkpoint worker's first pass or its failure, then runs `end` (`s`: the store).
 */
function writingScript(dir: string, end: string, options = '{}'): string {
  return `
      import { SqliteStore } from ${JSON.stringify(new URL('../../../electron/store/sqlite.ts', import.meta.url).href)};
      const s = new SqliteStore(${JSON.stringify(join(dir, 'db.sqlite'))}, ${options});
      s.db.exec('CREATE TABLE t (x)');
      for (let i = 0; i < 100; i++) await s.write(async (w) => { await w.run('INSERT INTO t VALUES (?)', [i]); });
      while (s.checkpointer.stats().passes === 0 && !s.checkpointer.stats().failed) await new Promise((r) => setTimeout(r, 5));
      ${end}`;
}

/** Comments the fixture itself holds (the tests count the rows they add on top). */
function fixtureComments(s: SqliteStore): number {
  return s.getSync<{ n: number }>("SELECT count(*) AS n FROM comments WHERE body NOT LIKE 'comment %'")!.n;
}
