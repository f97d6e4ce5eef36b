// The sync engine's options (electron/sync/engine.ts re-exports them).

import type { Store } from '../store/types.ts';
import type { TokenVault } from './token-vault.ts';
import type { BackoffPolicy, Timers } from './backoff.ts';

export interface EngineOptions {
  readonly store: Store;
  /** Where the remote token file (0600) lives; null keeps it in memory only (tests). */
  readonly dataDir: string | null;
  /**
   * Where the remote token is kept instead of that file (the desktop shell: its safeStorage
   * secrets). A token file found in dataDir is moved into it and deleted.
   */
  readonly tokenVault?: TokenVault;
  /** Seconds between syncs (default 30; 0 = only on demand). */
  readonly intervalSec?: number;
  /** Per-request timeout against the remote (ms). */
  readonly timeoutMs?: number;
  /** Called with progress while syncing (the CLI's progress bar). */
  readonly onProgress?: (p: { phase: 'pull' | 'push'; done: number; total: number }) => void;
  /** Independent outbox entries pushed at once (default 8; 1 = strictly one request at a time). */
  readonly pushConcurrency?: number;
  /**
   * Plain-server scans: every scan also reads the comments of one slice in N of the parents whose
   * hints (comment count, last comment time) did not change, in rotation, so a comment whose body
   * alone was edited is seen within N scans (default 10; 1 = every comment list on every scan; 0 = never,
   * the hints only: such an edit waits until its parent changes; D162).
   */
  readonly deepScanEvery?: number;
  /** Bytes of one remote answer read at most, in MiB (default 64, `serve --sync-max-answer-mb`; D249). */
  readonly maxAnswerMb?: number;
  /** Feed pages one sync run reads at most (default 250 pages of 1000 changes); the rest in the next run (D248). */
  readonly maxPullPages?: number;
  /** Time one sync run spends pulling the feed at most (default 120 s); the rest in the next run (D248). */
  readonly maxPullMs?: number;
  /** A remote record refused alone (unrepresentable, or an impossible move; D251, D252): default a line on stderr. */
  readonly onRefused?: (message: string) => void;
  /**
   * Why this server serves a network (a non-loopback --host, --trust-proxy, a PostgreSQL store), or
   * null for the local service of one person: a server that serves a network never becomes a
   * replica (D254; electron/sync/owner.ts servesNetwork).
   */
  readonly network?: string | null;
  /** The clock and timers of the schedule (tests and bench:sync inject a virtual clock; D255). */
  readonly timers?: Timers;
  /** The jitter's random source in [0, 1) (default Math.random). */
  readonly random?: () => number;
  /** Retry delays (default BACKOFF: 1 s doubling up to 5 min, full jitter). */
  readonly backoff?: BackoffPolicy;
  /** Follow the team server's change stream once started (default: yes on the real clock, no on an injected one; false: the interval only). D305. */
  readonly live?: boolean;
  /** Called after each successful sync (the server writes the api-token file once a clone brought the owner). */
  readonly onSynced?: () => Promise<void>;
}

