// WAL checkpoints off the store's thread (D180, after D132). SQLite's automatic checkpoint (every 1,000
// WAL pages) runs inside the COMMIT that crosses the mark: it copies pages into the database file and
// fsyncs while the event loop, so every request in flight, waits. Here the store's connection turns it
// off (`wal_autocheckpoint = 0`) and a worker thread on a second connection runs PASSIVE checkpoints
// (checkpoint-worker.ts), repeated until a pass sees no write (caught up).
//
// The WAL must stay bounded: SQLite rewinds the log only when a write begins with every frame already
// backfilled. Under steady writes a write may always land during a pass; so after `gateAfter` writes
// without a caught-up pass, the next write waits (asynchronously: reads go on) until the worker has run
// a pass with no write in it. That write then rewinds the log. If the worker cannot start or dies, the
// store's connection goes back to SQLite's automatic checkpoint (`onFailure`).
//
// One instance per store (no module-level state). The worker never keeps the process alive (unref),
// except while a write waits for it; close() stops it and waits for its end.

import { channel } from 'node:diagnostics_channel';
import { Worker } from 'node:worker_threads';
import { SLOT, SLOTS, type CheckpointWorkerData } from './checkpoint-state.ts';

/**
 * Published when a write begins to wait for a caught-up pass (`{ waiting: true }`) and when the writes
 * waiting are let go (`{ waiting: false }`): for tools that attribute latency (D229's bench/tail.ts, in git at a7a4e62). Nothing
 * is built unless something subscribes.
 */
export const gateChannel = channel('bivouac:checkpoint-gate');

export interface CheckpointerOptions {
  /** A pass starts once this many writes happened since the last one began. */
  readonly every?: number;
  /** Passes in a row while writes land during them. */
  readonly maxPasses?: number;
  /** Writes since the last caught-up pass after which the next write waits for one (bounds the WAL). */
  readonly gateAfter?: number;
  /** The worker module (tests point it elsewhere to make the worker fail). */
  readonly workerUrl?: URL;
  /** The write counter's first value (tests start it near 2^31 to see it wrap). */
  readonly firstCount?: number;
}

export interface CheckpointStats {
  /** The last pass: frames in the log when it began, frames backfilled, 1 if it could not finish. */
  readonly log: number;
  readonly checkpointed: number;
  readonly busy: number;
  readonly passes: number;
  /** Writes that waited for a caught-up pass. */
  readonly gated: number;
  /** Times the store woke the worker (rang its bell). */
  readonly rings: number;
  /** The worker failed: the store checkpoints itself again (SQLite's automatic checkpoint). */
  readonly failed: boolean;
  readonly running: boolean;
}

/** The worker module next to this one, with this module's own extension (.ts from the sources, .js built). */
function defaultWorkerUrl(): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./checkpoint-worker${ext}`, import.meta.url);
}

/**
 * The worker's Node options, in the order to try them. Left out, a worker inherits the options of the process
 * that a worker can take; V8's (`--max-old-space-size`, `--trace-gc`, …) are not in that list: they are the
 * process's and apply to the worker's isolate anyway. Given, any of V8's makes Node refuse the worker
 * (ERR_WORKER_INVALID_EXEC_ARGV; a server started with a heap option lost its worker, D233). But inherited,
 * `--input-type` (a script given with -e) makes Node refuse a worker from a file: then the process's options
 * without it, and if Node refuses one of them, none (preloads given with --import included: a script's case).
 */
function workerArgv(): (string[] | undefined)[] {
  if (!process.execArgv.some((a) => a.startsWith('--input-type'))) return [undefined];
  return [process.execArgv.filter((a) => !a.startsWith('--input-type')), []];
}

export class Checkpointer {
  private readonly s = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private readonly path: string;
  private readonly every: number;
  private readonly maxPasses: number;
  private readonly gateAfter: number;
  private readonly url: URL;
  private readonly onFailure: (e: unknown) => void;
  private worker: Worker | null = null;
  private exited: Promise<void> | null = null;
  private closing = false;
  private failed = false;
  private gated = 0;
  private rings = 0;
  /** WRITES when the last waiting write was let go (one wait per `gateAfter` writes at most). */
  private releasedAt = 0;
  private waiters: (() => void)[] = [];

  constructor(path: string, onFailure: (e: unknown) => void, opts: CheckpointerOptions = {}) {
    this.path = path;
    this.onFailure = onFailure;
    this.every = opts.every ?? 32;
    this.maxPasses = opts.maxPasses ?? 3;
    this.gateAfter = opts.gateAfter ?? 100;
    this.url = opts.workerUrl ?? defaultWorkerUrl();
    if (opts.firstCount !== undefined) {
      for (const slot of [SLOT.WRITES, SLOT.CAUGHT, SLOT.LAST_START]) Atomics.store(this.s, slot, opts.firstCount);
      this.releasedAt = opts.firstCount | 0;
    }
  }

  /**
   * Before a write transaction (in the store's write queue, before BEGIN): null to go ahead now, or a
   * promise to await first when `gateAfter` writes went by without a caught-up pass.
   */
  beforeWrite(): Promise<void> | null {
    if (this.failed || this.closing) return null;
    const s = this.s;
    const writes = Atomics.load(s, SLOT.WRITES);
    // Since the later of the last caught-up pass and the last release; in 32 bits, as the counter wraps.
    const since = Math.min((writes - Atomics.load(s, SLOT.CAUGHT)) | 0, (writes - this.releasedAt) | 0);
    if (since / 2 < this.gateAfter) return null;
    const w = this.start();
    if (!w) return null;
    this.gated++;
    if (gateChannel.hasSubscribers && this.waiters.length === 0) gateChannel.publish({ waiting: true });
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      w.ref(); // a write is waiting for the worker: the process must not exit under it
      Atomics.add(s, SLOT.WANT, 1);
      this.ring();
    });
  }

  /** A write transaction begins (BEGIN) on the store's connection. */
  writing(): void {
    if (this.failed) return;
    Atomics.add(this.s, SLOT.WRITES, 1);
  }

  /**
   * It ended (COMMIT or ROLLBACK). The worker starts with the first write. The bell is rung only when the
   * worker has a pass to run (`every` writes since its last pass began): waking a sleeping thread is a
   * system call, and a wake-up after every write cost the write ~15 µs for a worker that went back to
   * sleep 31 times in 32 (D229).
   */
  written(): void {
    if (this.failed) return;
    const writes = (Atomics.add(this.s, SLOT.WRITES, 1) + 1) | 0; // the value stored: it wraps at 2^31
    if (!this.closing) this.start();
    if (((writes - Atomics.load(this.s, SLOT.LAST_START)) | 0) >= 2 * this.every) this.ring();
  }

  stats(): CheckpointStats {
    const s = this.s;
    return {
      log: Atomics.load(s, SLOT.LOG), checkpointed: Atomics.load(s, SLOT.CHECKPOINTED), busy: Atomics.load(s, SLOT.BUSY),
      passes: Atomics.load(s, SLOT.PASSES), gated: this.gated, rings: this.rings, failed: this.failed, running: Atomics.load(s, SLOT.RUNNING) === 1,
    };
  }

  /** Stop the worker (it ends the pass under way, closes its connection) and wait for its end. */
  async close(): Promise<void> {
    this.closing = true;
    Atomics.store(this.s, SLOT.STOP, 1);
    this.ring();
    this.letGo();
    // Held while it ends (a pass under way finishes first), so that awaiting close() keeps the process up.
    this.worker?.ref();
    await this.exited;
  }

  private ring(): void {
    this.rings++;
    Atomics.add(this.s, SLOT.BELL, 1);
    Atomics.notify(this.s, SLOT.BELL);
  }

  private release(): void {
    this.releasedAt = Atomics.load(this.s, SLOT.WRITES);
    if (!this.closing) this.worker?.unref();
    this.letGo();
  }

  /** The writes waiting for a pass go on (the end of a wait, published). */
  private letGo(): void {
    if (gateChannel.hasSubscribers && this.waiters.length) gateChannel.publish({ waiting: false });
    for (const f of this.waiters.splice(0)) f();
  }

  private start(): Worker | null {
    if (this.worker || this.failed) return this.worker;
    const data: CheckpointWorkerData = { path: this.path, state: this.s.buffer as SharedArrayBuffer, every: this.every, maxPasses: this.maxPasses };
    let w: Worker | null = null;
    for (const execArgv of workerArgv()) {
      try {
        w = new Worker(this.url, { workerData: data, execArgv });
        break;
      } catch (e) {
        if ((e as { code?: string }).code === 'ERR_WORKER_INVALID_EXEC_ARGV' && execArgv?.length) continue; // then with none
        this.fail(e);
        return null;
      }
    }
    if (!w) return null;
    w.on('message', () => this.release());
    w.on('error', (e) => this.fail(e));
    this.exited = new Promise<void>((resolve) => w.once('exit', (code) => {
      if (!this.closing) this.fail(new Error(`the checkpoint worker ended (exit code ${code})`));
      resolve();
    }));
    w.unref(); // never keeps the process alive (after the listeners: adding one refs the worker again)
    this.worker = w;
    return w;
  }

  private fail(e: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.release();
    if (!this.closing) this.onFailure(e);
  }
}
