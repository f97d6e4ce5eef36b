// The checkpoint worker (D180): a thread of its own with a second connection to the store's database
// file, running `PRAGMA wal_checkpoint(PASSIVE)`, SQLite's own checkpoint protocol: it copies committed
// WAL frames into the database file, fsyncs as SQLite does (synchronous = NORMAL: the WAL before, the
// database file after), never waits for a lock and never blocks a reader or a writer, in this process
// or another. Started by Checkpointer (checkpointer.ts) with `new Worker(url of this file)`: from the
// TypeScript sources (Node 24 strips the types) and from the compiled build (dist/…/checkpoint-worker.js).
// It talks to the store through shared memory (checkpoint-state.ts); it posts a message only to answer
// the store's wish for a pass with no write in it.

import { parentPort, workerData } from 'node:worker_threads';
import { DatabaseSync } from 'node:sqlite';
import { SLOT, type CheckpointWorkerData } from './checkpoint-state.ts';

function run(data: CheckpointWorkerData): void {
  const s = new Int32Array(data.state);
  const db = new DatabaseSync(data.path);
  // Never wait: a PASSIVE checkpoint that finds the checkpoint lock taken (another process's
  // checkpoint) answers busy = 1 and is tried again later. Never synchronous = OFF here: that would
  // skip the fsyncs that make the copied pages durable before the log is reused.
  db.exec('PRAGMA busy_timeout = 0; PRAGMA synchronous = NORMAL');
  const pass = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  let lastStart = Atomics.load(s, SLOT.LAST_START); // WRITES when the last pass began (the slot holds it too)
  try {
    for (;;) {
      const bell = Atomics.load(s, SLOT.BELL);
      if (Atomics.load(s, SLOT.STOP)) break;
      const wished = Atomics.load(s, SLOT.WANT) !== Atomics.load(s, SLOT.SERVED);
      // Differences of the 32-bit counter are taken in 32 bits (`| 0`): it wraps after ~2^30 transactions (two counts each).
      if (!wished && ((Atomics.load(s, SLOT.WRITES) - lastStart) | 0) < 2 * data.every) {
        Atomics.wait(s, SLOT.BELL, bell);
        continue;
      }
      // Repeat while writes land during the pass: each pass copies only what the one before missed. A
      // pass that saw no write and backfilled every frame is caught up: the store's next write finds the
      // log so and SQLite rewinds it to its start (the WAL stops growing). A wish is answered by a pass
      // with no write in it, even if it could not copy everything (a reader in another process holding an
      // old snapshot): the store's write must not wait for that reader.
      for (let i = 1; ; i++) {
        const start = Atomics.load(s, SLOT.WRITES);
        // Published as the pass begins: writes landing during it ring only once another pass is due (D229).
        Atomics.store(s, SLOT.LAST_START, start);
        Atomics.store(s, SLOT.RUNNING, 1);
        const r = pass.get() as { busy: number; log: number; checkpointed: number };
        Atomics.store(s, SLOT.RUNNING, 0);
        Atomics.store(s, SLOT.LOG, r.log);
        Atomics.store(s, SLOT.CHECKPOINTED, r.checkpointed);
        Atomics.store(s, SLOT.BUSY, r.busy);
        Atomics.add(s, SLOT.PASSES, 1);
        lastStart = start;
        const still = (start & 1) === 0 && Atomics.load(s, SLOT.WRITES) === start;
        const full = r.busy === 0 && r.log === r.checkpointed;
        if (still && full) Atomics.store(s, SLOT.CAUGHT, start);
        if (still && (full || i >= data.maxPasses)) {
          const want = Atomics.load(s, SLOT.WANT);
          if (want !== Atomics.load(s, SLOT.SERVED)) {
            Atomics.store(s, SLOT.SERVED, want);
            parentPort?.postMessage(want);
          }
          break;
        }
        if (i >= data.maxPasses || Atomics.load(s, SLOT.STOP)) break;
      }
    }
  } finally {
    db.close();
  }
}

run(workerData as CheckpointWorkerData);
