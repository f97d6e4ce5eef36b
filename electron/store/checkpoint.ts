// WAL checkpoints off the event loop (D132). SQLite copies the WAL back into the database file every
// 1,000 pages by default, inside the COMMIT that crosses the mark: that commit then writes and fsyncs
// both files, 10–90 ms measured on this machine, while every other request waits on the one thread.
// The store's connection turns that off (`wal_autocheckpoint = 0`) and this class runs PASSIVE
// checkpoints on a second connection in a worker thread instead: they never block the writer or the
// readers, and the WAL is still recycled. Owned by one store instance (no module-level state).

import { Worker } from 'node:worker_threads';

/** The worker: its own connection to the same file; one PASSIVE checkpoint per request. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path);
db.exec('PRAGMA busy_timeout = 5000');
const st = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
parentPort.on('message', (m) => {
  if (m === 'close') { db.close(); parentPort.close(); return; }
  let r;
  try { r = st.get(); } catch (e) { r = { error: String(e && e.message || e) }; }
  parentPort.postMessage(r);
});
`;

export interface CheckpointResult { readonly busy?: number; readonly log?: number; readonly checkpointed?: number; readonly error?: string }

export class Checkpointer {
  private worker: Worker | null = null;
  private readonly path: string;
  /** Commits between two checkpoints (~4 pages each for a typical write). */
  private readonly every: number;
  private since = 0;
  private busy = false;
  private again = false;
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  /** The last checkpoint's answer (PRAGMA wal_checkpoint: busy, log, checkpointed frames). */
  last: CheckpointResult | null = null;
  done = 0;

  /** Called if the worker fails: the store's connection goes back to checkpointing itself. */
  private readonly onFailure: () => void;

  constructor(path: string, onFailure: () => void, every = 32) {
    this.path = path;
    this.onFailure = onFailure;
    this.every = every;
  }

  /** Called after each commit of the store's connection. */
  committed(): void {
    if (this.closed || ++this.since < this.every) return;
    this.request();
  }

  /** Ask for a checkpoint now (or right after the one under way). */
  request(): void {
    if (this.closed) return;
    this.since = 0;
    if (this.busy) { this.again = true; return; }
    this.busy = true;
    this.start().postMessage('checkpoint');
  }

  /** Resolves when no checkpoint is under way or asked for. */
  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((res) => this.idleWaiters.push(res));
  }

  async close(): Promise<void> {
    await this.idle();
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    if (!w) return;
    const exited = new Promise<void>((res) => w.once('exit', () => res()));
    w.postMessage('close');
    await exited;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER, { eval: true, workerData: { path: this.path } });
    w.unref(); // never keeps the process alive
    w.on('message', (r: CheckpointResult) => {
      this.last = r;
      this.done++;
      this.busy = false;
      if (this.again && !this.closed) { this.again = false; this.request(); return; }
      for (const f of this.idleWaiters.splice(0)) f();
    });
    w.on('error', (e) => {
      this.last = { error: String(e) };
      this.busy = false;
      this.worker = null;
      this.closed = true;
      this.onFailure();
      for (const f of this.idleWaiters.splice(0)) f();
    });
    this.worker = w;
    return w;
  }
}
