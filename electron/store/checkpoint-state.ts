// The memory the store's thread and its checkpoint worker share (D180): one Int32Array over a
// SharedArrayBuffer, read and written with Atomics only. Both sides see it synchronously, so neither
// needs the other's event loop to turn (a burst of writes awaited in microtasks never yields to it).

/** Slot indexes in the shared Int32Array. */
export const SLOT = {
  /** Bumped (and notified) by the store on every event the worker must act on: enough writes for a pass, a wish, stop. */
  BELL: 0,
  /** Two per write transaction of the store's connection: odd while one is open (BEGIN … COMMIT/ROLLBACK). */
  WRITES: 1,
  /** 1: the worker closes its connection and ends. */
  STOP: 2,
  /** The store's wish for a pass with no write in it (a sequence number); the worker answers with a message. */
  WANT: 3,
  /** The last wish answered. */
  SERVED: 4,
  /** WRITES at the start of the last pass that saw no write begin or end while it ran (caught up). */
  CAUGHT: 5,
  /** The last pass's answer (PRAGMA wal_checkpoint: frames in the log when it started, frames backfilled, busy). */
  LOG: 6,
  CHECKPOINTED: 7,
  BUSY: 8,
  /** Passes run. */
  PASSES: 9,
  /** 1 while a pass runs. */
  RUNNING: 10,
  /**
   * WRITES when the worker's last pass began (0 before the first; stored as the pass begins): the store rings
   * the bell after a write only once WRITES has moved `2 × every` past it, when the worker has a pass to run
   * (D229). Counters wrap at 2^31: their differences are taken in 32 bits (`(a - b) | 0`).
   */
  LAST_START: 11,
} as const;
export const SLOTS = 12;

/** What the store passes to the worker (workerData). */
export interface CheckpointWorkerData {
  readonly path: string;
  readonly state: SharedArrayBuffer;
  /** Start a pass once this many writes happened since the last pass began. */
  readonly every: number;
  /** Passes in a row while writes keep landing during them (repeat until caught up, at most this many). */
  readonly maxPasses: number;
}
