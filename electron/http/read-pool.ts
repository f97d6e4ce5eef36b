// Read threads (D232): worker threads, each with a replica of the SQLite store (store/sqlite-replica.ts) and
// the same routes (read-worker.ts), that answer the thin path's reads: the handler, redaction and rendering
// of a resource GET run there, while this thread parses HTTP, checks Host/Origin, authenticates, runs the
// writes and sends the answers. Under the mixed workload one thread was saturated while a core stood idle
// a third of the time (D232's figures).
//
// A read goes to the thread with the fewest reads in flight, up to `depth` each; none ready (starting,
// failed) or all full, and this thread answers it itself, as it does a read whose route wrote (the replica
// does not write). A thread that fails is not used again; the reads it held are answered here.

import { Worker } from 'node:worker_threads';
import type { Caller } from '../store/types.ts';
import { ApiError } from '../service/context.ts';
import type { Rendered } from './cache.ts';
import type { ReadThreads } from './fast.ts';

export interface ReadPoolOptions {
  /** The store's file and its shared counts (SqliteStore.replica()). */
  readonly path: string;
  readonly counts: SharedArrayBuffer;
  /** Threads to start (≥ 1). */
  readonly threads: number;
  /** Reads in flight per thread before this thread answers one itself (default 4). */
  readonly depth?: number;
  /** Bytes of records' XML text each thread keeps (the app's `recordTextBytes`). */
  readonly recordTextBytes?: number;
  /** A failure of a thread (logged by the caller); the pool goes on with the others, or none. */
  readonly onFailure?: (e: unknown) => void;
  /** The worker's module (tests). */
  readonly url?: URL;
}

/** What the worker posts. */
export type ReadReply =
  | { readonly ready: true }
  | { readonly id: number; readonly out: Rendered }
  | { readonly id: number; readonly local: true }
  | { readonly id: number; readonly error: { readonly status: number; readonly messages: readonly string[]; readonly headers: Record<string, string> } }
  | { readonly id: number; readonly crash: { readonly message: string; readonly stack?: string } };
/** What the worker is sent. */
export interface ReadAsk { readonly id: number; readonly url: string; readonly caller: Caller; readonly token: string; readonly json: boolean }
export interface ReadWorkerData { readonly path: string; readonly counts: SharedArrayBuffer; readonly recordTextBytes?: number }

interface Pending { resolve(r: Rendered | null): void; reject(e: unknown): void }
interface Thread { readonly worker: Worker; ready: boolean; failed: boolean; readonly pending: Map<number, Pending> }

function defaultUrl(): URL {
  return new URL(`./read-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
}

export class ReadPool implements ReadThreads {
  private readonly threads: Thread[] = [];
  private readonly depth: number;
  private seq = 0;
  private closed = false;
  /** Reads answered by a thread, and here (none ready or free, or the route wrote). */
  readonly counts = { threads: 0, here: 0 };

  private readonly o: ReadPoolOptions;

  constructor(o: ReadPoolOptions) {
    this.o = o;
    this.depth = o.depth ?? Number(process.env.BIVOUAC_READ_DEPTH ?? 4);
    for (let i = 0; i < o.threads; i++) this.spawn();
  }

  private spawn(): void {
    const data: ReadWorkerData = { path: this.o.path, counts: this.o.counts, recordTextBytes: this.o.recordTextBytes };
    // As the checkpointer's: `--input-type` (a script given with -e) makes Node refuse a worker from a file.
    const execArgv = process.execArgv.filter((a) => !a.startsWith('--input-type'));
    let worker: Worker;
    try {
      worker = new Worker(this.o.url ?? defaultUrl(), { workerData: data, execArgv });
    } catch (e) {
      this.o.onFailure?.(e);
      return;
    }
    const t: Thread = { worker, ready: false, failed: false, pending: new Map() };
    worker.on('message', (m: ReadReply) => this.reply(t, m));
    worker.on('error', (e) => this.fail(t, e));
    worker.on('exit', (code) => this.fail(t, new Error(`a read thread ended (exit code ${code})`)));
    worker.unref();
    this.threads.push(t);
  }

  private reply(t: Thread, m: ReadReply): void {
    if ('ready' in m) { t.ready = !t.failed; return; }
    const p = t.pending.get(m.id);
    if (!p) return;
    t.pending.delete(m.id);
    if ('out' in m) { this.counts.threads++; p.resolve(m.out); }
    else if ('local' in m) { this.counts.here++; p.resolve(null); }
    else if ('error' in m) p.reject(new ApiError(m.error.status, m.error.messages, m.error.headers));
    else {
      const e = new Error(m.crash.message);
      if (m.crash.stack) e.stack = m.crash.stack;
      p.reject(e);
    }
  }

  /** A thread failed (or ended): never used again, and what it held is answered here. */
  private fail(t: Thread, e: unknown): void {
    if (t.failed) return;
    t.failed = true;
    t.ready = false;
    for (const p of t.pending.values()) p.resolve(null);
    t.pending.clear();
    if (!this.closed) this.o.onFailure?.(e);
  }

  produce(url: string, caller: Caller, token: string, json: boolean): Promise<Rendered | null> {
    let best: Thread | null = null;
    for (const t of this.threads) if (t.ready && t.pending.size < this.depth && (best === null || t.pending.size < best.pending.size)) best = t;
    if (best === null) { this.counts.here++; return Promise.resolve(null); }
    const id = ++this.seq;
    const ask: ReadAsk = { id, url, caller, token, json };
    const t = best;
    return new Promise<Rendered | null>((resolve, reject) => {
      t.pending.set(id, { resolve, reject });
      t.worker.postMessage(ask);
    });
  }

  /** Threads started and ready. */
  ready(): number { return this.threads.filter((t) => t.ready).length; }

  /** Resolves when every thread is ready or failed (tests, benches). */
  async started(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.threads.some((t) => !t.ready && !t.failed)) {
      if (Date.now() > until) throw new Error('the read threads did not start');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map(async (t) => {
      this.fail(t, null);
      await t.worker.terminate();
    }));
  }
}
