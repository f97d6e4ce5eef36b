// The sync engine (issue #8): one sync at a time; pull (the team server's feed, or a full scan of the
// public routes diffed against shadow copies) merged with pending local edits, then push of the outbox.
// Local writes never wait for it: they only append to the outbox (electron/store/outbox.ts).
//
// This file only wires the phases (issue #26, D317), each a module of functions with explicit inputs:
// connect.ts (link, adoption, rollback, tokens), schedule.ts (timer, backoff), scan.ts (plain server),
// feed.ts (team server's feed), apply.ts (a set of records in one transaction), push.ts (the outbox),
// reject.ts (a refused push), status.ts. Decisions live in shared/sync/; SQL in electron/store/queries/replica.ts.

import { FileTokenVault, MemoryTokenVault, replacingTokenFile } from './token-vault.ts';
import * as q from '../store/queries/replica.ts';
import type { Store } from '../store/types.ts';
import { DEFAULT_MAX_ANSWER_MB, Remote, RemoteUnreachable, type RemoteAuth } from './remote.ts';
import { SyncError, type ConflictAction, type ConflictView, type RejectedView, type SyncPort, type SyncState, type SyncStatus } from '../service/sync.ts';
import { ownerId } from './owner.ts';
import { listConflicts, resolveConflict } from './conflicts.ts';
import { exchangeNotices } from './notices.ts';
import { BACKOFF, REAL_TIMERS } from './backoff.ts';
import { LiveFollower } from './live.ts';
import type { EngineOptions } from './options.ts';
import { Backoff, transient, type PhaseEnv } from './phase.ts';
import { firstSyncRefused, link, rememberRemoteKind, restoreDirectory, Tokens, unlink, untouchedSince, type Before, type ConnectEnv } from './connect.ts';
import { arm, disarm, failed, newSchedule, reset, retryIn, soon, succeeded, type AttemptKind, type ScheduleEnv } from './schedule.ts';
import { pullScan } from './scan.ts';
import { pullFeed } from './feed.ts';
import { push } from './push.ts';
import { listRejected } from './reject.ts';
import { syncStatus } from './status.ts';

export type { EngineOptions } from './options.ts';

/** Seconds between syncs while the team server's change stream is open: a safety net only (D306). */
export const LIVE_INTERVAL_SEC = 300;
/** The debounce of a sync after a local write while the team server's stream is open (ms; else 250). D305. */
export const LIVE_DEBOUNCE_MS = 50;

export class SyncEngine implements SyncPort {
  private readonly store: Store;
  private readonly o: EngineOptions;
  private remote: Remote | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** The one scheduled attempt and the backoff (schedule.ts, D255). */
  private readonly sched = newSchedule();
  private readonly clock: ScheduleEnv;
  /** A connect going on in the background (a start with --remote, D253) until it links or is refused. */
  private pendingConnect: { url: string; auth: RemoteAuth; resolve: () => void; reject: (e: Error) => void } | null = null;
  private connectAttempt: Promise<void> | null = null;
  /** Aborted by stop(): a connect still waiting on the remote's checks gives up (a close does not wait 15 s). */
  private halt = new AbortController();
  private state: SyncState = 'idle';
  private error: string | null = null;
  private progress: { done: number; total: number; phase: 'pull' | 'push' } | null = null;
  private kind: 'team' | 'plain' | null = null;
  /** The team server's change stream, followed while started (electron/sync/live.ts, D305). */
  private live: { remote: Remote; f: LiveFollower } | null = null;
  /** Started (start(), or a connect in the background) and not stopped since: the stream is followed (D305). */
  private started = false;
  /** The last success of a sync that committed nothing (not written: an idle sync commits nothing, D307). */
  private idleSuccessAt: string | null = null;
  /** When the remote stopped answering (first failure of the current offline spell), ISO; null while online. */
  private offlineSince: string | null = null;
  private readonly tokens: Tokens;
  /** What the pull and push phases are given. */
  private readonly env: PhaseEnv;

  constructor(o: EngineOptions) {
    this.store = o.store;
    this.o = o;
    this.tokens = new Tokens(!o.dataDir ? (o.tokenVault ?? new MemoryTokenVault())
      : o.tokenVault ? replacingTokenFile(o.dataDir, o.tokenVault) : new FileTokenVault(o.dataDir));
    this.clock = {
      timers: o.timers ?? REAL_TIMERS, random: o.random ?? Math.random, backoff: o.backoff ?? BACKOFF,
      fire: () => {
        // A timer due during a connect's first sync (the clone; a run bounded by maxPullPages asks for the next in
        // 1 s, a local write for a push) is kept for when the connect has settled. Taken for the connect's retry,
        // it joined the attempt and was lost (D351).
        if (this.pendingConnect && this.firstSync) this.dueAfterConnect = true;
        else if (this.pendingConnect) void this.attemptConnect().catch(() => undefined);
        else void this.run().catch(() => undefined);
      },
    };
    this.env = { store: o.store, refuse: (m) => this.refuse(m), report: (phase, done, total) => this.report(phase, done, total), held: {} };
  }

  // ---- connection -------------------------------------------------------------------------------

  /** Resume a saved connection (token file + state) on start; false when standalone. */
  async resume(): Promise<boolean> {
    const st = await q.state(this.store);
    const url = st.get('url');
    // A disconnected replica keeps recording its outbox (D151).
    if (!url) { this.store.recordOutbox = st.has('was_url'); return false; }
    const token = await this.tokens.read();
    if (!token) return false;
    this.remote = this.remoteFor(url, { token });
    this.store.recordOutbox = true;
    return true;
  }

  /**
   * Connect to a remote: check the credentials at once (nothing changes when they fail), keep the
   * remote API token (never the password), then clone what that person can see. A server used by
   * more than one person is refused before the remote is contacted (D254). A first sync refused half
   * way (a 4xx, an answer that cannot be applied) puts the directory back exactly as it was (D256).
   */
  async connect(url: string, auth: RemoteAuth, o: { caller?: number | null } = {}): Promise<void> {
    // Asked directly (PUT /sync/remote, the first-run form): a connect going on in the background gives way.
    if (this.pendingConnect) {
      this.pendingConnect = null;
      this.unschedule();
      this.halt.abort();
      this.halt = new AbortController();
      await this.connectAttempt?.catch(() => undefined);
    }
    return this.connectOnce(url, auth, o);
  }

  /** One connect at a time (a background attempt and a direct one never link together). */
  private connectChain: Promise<unknown> = Promise.resolve();
  private connectOnce(url: string, auth: RemoteAuth, o: { caller?: number | null }): Promise<void> {
    const next = this.connectChain.then(() => this.link(url, auth, o));
    this.connectChain = next.catch(() => undefined);
    return next;
  }

  private async link(url: string, auth: RemoteAuth, o: { caller?: number | null }): Promise<void> {
    const env: ConnectEnv = { store: this.store, network: this.o.network, tokens: this.tokens, remoteFor: (u, a) => this.remoteFor(u, a), signal: this.halt.signal };
    const linked = await link(env, url, auth, o.caller ?? null, () => ({ remote: this.remote, kind: this.kind }));
    this.remote = linked.remote;
    this.store.recordOutbox = true;
    reset(this.sched);
    this.firstSync = true;
    this.dueAfterConnect = false;
    try {
      await this.run();
    } catch (e) {
      // A failure armed its retry (or the connect is refused): a timer kept meanwhile goes (D351).
      this.firstSync = false;
      this.dueAfterConnect = false;
      // Linked: the connect stands and the clone (or the push of adopted work) goes on when the remote
      // answers again; the status says why it stopped.
      if (transient(e)) return;
      // Refused: put the directory back, unless something already reached the remote or was written here
      // meanwhile (then the link stands, and the status says why the sync stopped).
      if (!(await untouchedSince(this.store, linked))) return;
      await this.rollback(linked.before);
      throw firstSyncRefused(e);
    } finally {
      this.firstSync = false;
    }
    // Linked and synced: a timer that came due meanwhile runs now, once the connect has settled (a timer is a
    // task: it fires after the attempt's end, D351).
    if (this.dueAfterConnect) {
      this.dueAfterConnect = false;
      this.nudge(0);
    }
  }

  /** The connect's first sync is running (its link done): a timer due now waits for the connect's end (D351). */
  private firstSync = false;
  private dueAfterConnect = false;

  /** Put the directory back as it was before a connect (D256): data or link, token, engine state. */
  private async rollback(b: Before): Promise<void> {
    this.remote = b.remote;
    this.unschedule();
    await this.running?.catch(() => undefined);
    await restoreDirectory(this.store, this.tokens, b);
    this.kind = b.kind;
    reset(this.sched);
    this.state = 'idle';
    this.error = null;
    this.progress = null;
  }

  /**
   * Forget the remote's token; local data stays, standalone. The sync state (id map, shadows,
   * outbox, cursor) is kept and the outbox goes on recording (D151): reconnecting the same person
   * to the same remote resumes and pushes what was done meanwhile.
   */
  async disconnect(): Promise<void> {
    this.stop();
    // A connect going on in the background is given up (its promise stays unsettled: nobody was refused).
    this.pendingConnect = null;
    await this.connectAttempt?.catch(() => undefined);
    await this.running?.catch(() => undefined);
    this.remote = null;
    await unlink(this.store, this.tokens);
    this.state = 'idle';
    this.error = null;
  }

  private remoteFor(url: string, auth: RemoteAuth): Remote {
    return new Remote({ url, auth, timeoutMs: this.o.timeoutMs, maxAnswerBytes: Math.max(1, this.o.maxAnswerMb ?? DEFAULT_MAX_ANSWER_MB) * 1024 * 1024 });
  }

  /** A remote record refused alone (D251, D252): logged, the rest goes on. */
  private refuse(message: string): void {
    if (this.o.onRefused) this.o.onRefused(message);
    else process.stderr.write(`bivouac sync: refused from the remote: ${message}\n`);
  }

  // ---- scheduling (D255, schedule.ts) -------------------------------------------------------------

  private schedule(ms: number, kind: AttemptKind): void { arm(this.sched, this.clock, ms, kind); }
  private unschedule(): void { disarm(this.sched, this.clock); }

  /** After an attempt: a success resets the backoff and arms the interval; a failure arms the next retry. */
  private settle(e: unknown): void {
    if (e !== null) { failed(this.sched, this.clock, e); return; }
    const sec = this.o.intervalSec ?? 30;
    // While the team server's stream is open, the interval is only a safety net (D306).
    succeeded(this.sched, this.clock, sec > 0 ? (this.live?.f.open ? Math.max(sec, LIVE_INTERVAL_SEC) : sec) * 1000 : 0);
  }

  /** Sync on the interval, and after a failure when its backoff ends. */
  start(): void {
    this.sched.stopped = false;
    this.started = true;
    if (this.kind === 'team') this.follow();
    if (this.sched.next || this.connectAttempt || this.running) return;
    const wait = this.sched.retryAt - this.clock.timers.now();
    if (this.pendingConnect || wait > 0) this.schedule(wait, 'retry');
    else if (this.remote && (this.o.intervalSec ?? 30) > 0) this.schedule((this.o.intervalSec ?? 30) * 1000, 'interval');
  }

  /** Follow the team server's change stream (D305): a change there is a sync soon. Once per remote. */
  private follow(): void {
    const remote = this.remote;
    // Followed once started; an engine on an injected clock (tests, bench) only when asked.
    if (this.sched.stopped || !this.started || !remote || !(this.o.live ?? this.o.timers === undefined)) return;
    if (this.live && this.live.remote !== remote) { this.live.f.stop(); this.live = null; }
    this.live ??= {
      remote,
      f: new LiveFollower({
        open: (path, signal) => remote.openStream(path, signal), timers: this.o.timers, random: this.o.random, backoff: this.o.backoff,
        onChange: () => this.nudge(0),
        // A stream lost: a sync says whether the remote is still there (the header's "Offline since").
        onState: (open, _why, gone) => { if (!open && !gone && this.live?.remote === remote) this.nudge(0); },
      }),
    };
    this.live.f.start();
  }

  private readonly changed = new Set<() => void>();
  /** Call `fn` after each sync that committed something here (the local service's change streams look at once). */
  onChanged(fn: () => void): void { this.changed.add(fn); }

  /** The change stream is open (tests, bench, status). */
  get following(): boolean { return this.live?.f.open ?? false; }
  /** Change streams this engine opened (tests, bench). */
  get streamsOpened(): number { return this.live?.f.opened ?? 0; }

  /** Stop the schedule; a connect waiting on the remote's first answers gives up at once (it is tried again on start). */
  stop(): void {
    this.sched.stopped = true;
    this.started = false;
    this.live?.f.stop();
    this.unschedule();
    this.halt.abort();
    this.halt = new AbortController();
  }

  /** A local write happened: sync soon (debounced), never blocking the writer, never before a retry is due. */
  nudge(delayMs?: number): void {
    if (!this.remote || this.sched.stopped) return;
    // Following a team server's stream, teammates wait for this push: a shorter debounce (D305).
    const d = delayMs ?? (this.live?.f.open ? LIVE_DEBOUNCE_MS : 250);
    soon(this.sched, this.clock, d);
  }

  /**
   * Connect in the background (a start with --remote, D253): the local service answers meanwhile and
   * the status says `connecting` (with the last failure in words). A remote that does not answer, or
   * answers 5xx/429, is tried again with the backoff; a refusal ends it (state `error`). Resolves once
   * linked, rejects with the refusal.
   */
  connectInBackground(url: string, auth: RemoteAuth): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pendingConnect = { url, auth, resolve, reject };
      this.started = true;
      this.state = 'connecting';
      this.error = null;
      reset(this.sched);
      void this.attemptConnect().catch(() => undefined);
    });
  }

  private attemptConnect(): Promise<void> {
    const p = this.pendingConnect;
    if (!p) return this.run();
    if (this.connectAttempt) return this.connectAttempt;
    this.unschedule();
    this.connectAttempt = (async () => {
      this.state = 'connecting';
      try {
        await this.connectOnce(p.url, p.auth, {});
      } catch (e) {
        if (this.pendingConnect !== p) throw e; // given up meanwhile
        this.error = (e as Error).message;
        if (e instanceof SyncError && e.transient) {
          this.state = 'connecting';
          this.settle(e);
        } else {
          this.pendingConnect = null;
          this.state = 'error';
          p.reject(e as Error);
        }
        throw e;
      }
      if (this.pendingConnect === p) this.pendingConnect = null;
      p.resolve();
    })().finally(() => { this.connectAttempt = null; });
    return this.connectAttempt;
  }

  get connected(): boolean { return this.remote !== null; }
  /** A connect is going on in the background (not linked yet). */
  get connecting(): boolean { return this.pendingConnect !== null && this.remote === null; }
  /** Resolves when no sync and no connect attempt is running (before closing the store). */
  async idle(): Promise<void> {
    await this.connectAttempt?.catch(() => undefined);
    await this.running?.catch(() => undefined);
  }
  /** How long until the next attempt after a failed sync (0: none waiting). */
  get retryInMs(): number { return retryIn(this.sched, this.clock); }
  /** Failed attempts in a row (0 after a success). */
  get failureCount(): number { return this.sched.failures; }
  /** Requests sent to the remote so far (tests, bench). */
  get requests(): number { return this.remote?.requests ?? 0; }

  async status(): Promise<SyncStatus> {
    return syncStatus(await q.state(this.store), await q.counts(this.store), {
      linked: this.remote !== null, state: this.state, error: this.error, progress: this.progress, kind: this.kind, pending: this.pendingConnect,
      idleSuccessAt: this.idleSuccessAt, offlineSince: this.offlineSince, live: this.following, retryInMs: this.retryInMs,
    });
  }

  /** Run one sync (pull, push, pull again if anything was pushed); joins a sync already running. */
  run(): Promise<void> {
    if (this.pendingConnect && !this.remote) return this.attemptConnect();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.once();
        } while (this.again && !this.sched.stopped);
      } finally {
        this.running = null;
        this.progress = null;
      }
    })();
    return this.running;
  }

  private async once(): Promise<void> {
    const remote = this.remote;
    if (!remote) throw new SyncError(409, 'No remote is connected');
    this.state = 'syncing';
    this.error = null;
    try {
      const caps = await remote.capabilities();
      this.kind = caps.feed || caps.idempotency ? 'team' : 'plain';
      await rememberRemoteKind(this.store, caps.admin ? 'admin' : this.kind); // D338: what a replica's administration may do
      const before = await this.store.changeToken();
      // A write whose answer was lost is settled first: otherwise the pull would take its
      // committed result for someone else's new record.
      await this.push(remote, caps.idempotency, true);
      // A pull is bounded (D248): what it did not reach is read by the next run, after the push.
      const complete = await this.pull(remote, caps.feed);
      const pushed = await this.push(remote, caps.idempotency);
      if (pushed && complete) await this.pull(remote, caps.feed);
      if (caps.notices) await exchangeNotices(this.store, remote); // D328: tell the other side of conflicts, be told
      if (!complete && !this.sched.stopped) this.nudge(1000);
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      // A sync that changed nothing here commits nothing (no change token moved, no cache invalidated, D307):
      // its time is kept in memory, and written with the next sync that commits.
      if (await this.store.changeToken() === before) this.idleSuccessAt = now;
      else {
        await this.store.write(async (w) => {
          w.outbox?.mute();
          await q.setState(w, 'last_success_at', now);
        });
        this.idleSuccessAt = null;
        for (const fn of this.changed) fn();
      }
      this.offlineSince = null;
      this.state = 'idle';
      if (caps.feed) this.follow();
      this.settle(null);
      await this.o.onSynced?.().catch(() => undefined);
    } catch (e) {
      // Every failure is retried with the backoff (D255): a remote that is down, busy or refusing is not hammered.
      this.state = (e instanceof Backoff && e.offline) || e instanceof RemoteUnreachable ? 'offline' : 'error';
      if (this.state === 'offline') this.offlineSince ??= new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      this.error = (e as Error).message;
      this.settle(e);
      throw e;
    }
  }

  private report(phase: 'pull' | 'push', done: number, total: number): void {
    this.progress = { done, total, phase };
    this.o.onProgress?.({ phase, done, total });
  }

  private pull(remote: Remote, feed: boolean): Promise<boolean> {
    return feed ? pullFeed(this.env, remote, this.o) : pullScan(this.env, remote, this.o);
  }

  private push(remote: Remote, idempotency: boolean, inDoubtOnly = false): Promise<boolean> {
    return push(this.env, remote, { idempotency, inDoubtOnly, concurrency: this.o.pushConcurrency, team: this.kind === 'team' });
  }

  conflicts(): Promise<ConflictView[]> { return listConflicts(this.store); }
  resolve(id: number, keep: ConflictAction): Promise<ConflictView> { return resolveConflict(this.store, id, keep); }
  rejected(): Promise<RejectedView[]> { return listRejected(this.store); }
  ownerId(): Promise<number | null> { return ownerId(this.store); }
}

export { listConflicts, resolveConflict } from './conflicts.ts';
export { listRejected } from './reject.ts';
