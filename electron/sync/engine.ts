// The sync engine (issue #8): one sync at a time; pull (full scan of the public routes, diffed
// against shadow copies) merged with pending local edits, then push of the outbox in order.
// Local writes never wait for it: they only append to the outbox (electron/store/outbox.ts).
//
// Decisions live in shared/sync/ (plan, ids, merge); SQL in electron/store/queries/replica.ts.

import { randomBytes } from 'node:crypto';
import { FileTokenVault, MemoryTokenVault, replacingTokenFile, type TokenVault } from './token-vault.ts';
import { column, RESOURCES, TABLE_ORDER, writableFields, type ResourceKey } from '../../shared/registry.ts';
import { rewriteIds, type IdLookup } from '../../shared/sync/ids.ts';
import { classify, dataKeys, deletedRemotely, editedRemotely, mergeRecord, orphaned, type Conflict } from '../../shared/sync/merge.ts';
import { matchesCreate, planAction, Unmapped, type LocalView, type RowChange, type Step } from '../../shared/sync/plan.ts';
import { decodeCollection, resourceOfTable, unrepresentable, type WireRow } from '../../shared/sync/wire.ts';
import { dependencies, ready } from '../../shared/sync/schedule.ts';
import { parseXml } from '../../shared/codec/in.ts';
import * as q from '../store/queries/replica.ts';
import { deleteRecord } from '../store/delete-record.ts';
import { lastChangeSeq } from '../store/queries/changes.ts';
import type { Store, Writer } from '../store/types.ts';
import { hashPassword, newToken } from '../service/auth.ts';
import { cursorAfter, DEFAULT_MAX_ANSWER_MB, Remote, RemoteError, RemoteFeedBroken, RemoteUnreachable, errorMessage, remoteNow, type FeedChange, type RemoteAuth, type RemoteResponse } from './remote.ts';
import { SyncError as ConnectError, type ConflictAction, type ConflictView, type RejectedView, type SyncPort, type SyncState, type SyncStatus } from '../service/sync.ts';
import { ownerId } from './owner.ts';
import { describe, keepInTree, listConflicts, newRestoreTree, resolveConflict, saveRestoreTree } from './conflicts.ts';
import { answerOf, mutationBytes, sendBatch, Skipped, toMutation } from './push-batch.ts';
import { status as setupStatus } from '../service/setup.ts';
import { blockedTime, matchAccount, matchCategories, type Matching } from '../../shared/sync/adopt.ts';
import { refResource } from '../../shared/sync/ids.ts';
import { BACKOFF, nextDelay, REAL_TIMERS, retryAfterMs, type BackoffPolicy, type Timers } from './backoff.ts';
import { LiveFollower } from './live.ts';
import * as life from '../store/queries/lifecycle.ts';
import { ownerCredentials } from '../store/queries/people.ts';


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

/** Seconds between syncs while the team server's change stream is open: a safety net only (D306). */
export const LIVE_INTERVAL_SEC = 300;
/** The debounce of a sync after a local write while the team server's stream is open (ms; else 250). D305. */
export const LIVE_DEBOUNCE_MS = 50;

/** Pages of one list a plain scan reads at most (posts 25 a page, time entries, comments; D248). */
const MAX_LIST_PAGES = 4000;


/** A sync stopped by a transient failure: retried with the backoff, not before `retryAfterMs` (the remote's Retry-After). */
class Backoff extends Error {
  readonly offline: boolean;
  readonly retryAfterMs: number | null;
  constructor(reason: string, offline: boolean, retryAfterMs: number | null = null) {
    super(reason);
    this.offline = offline;
    this.retryAfterMs = retryAfterMs;
  }
}

/** `p`, or a transient ConnectError as soon as `signal` aborts (the engine stopped). */
function untilStopped<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stopped = () => reject(new ConnectError(503, 'The service stopped before the remote answered', { transient: true }));
    if (signal.aborted) { stopped(); return; }
    signal.addEventListener('abort', stopped, { once: true });
    p.then((v) => { signal.removeEventListener('abort', stopped); resolve(v); }, (e: unknown) => { signal.removeEventListener('abort', stopped); reject(e as Error); });
  });
}

/** A failure the remote may get over by itself (no answer, 5xx, 429): retried; anything else is a refusal. */
const transient = (e: unknown): boolean => e instanceof Backoff || e instanceof RemoteUnreachable
  || (e instanceof RemoteError && (e.status >= 500 || e.status === 429));

const KIND_OF: Readonly<Record<string, 'posts' | 'milestones' | 'todo_items'>> = { post: 'posts', milestone: 'milestones', todoItem: 'todo_items' };
const TYPE_OF: Readonly<Record<string, string>> = { post: 'Post', milestone: 'Milestone', todoItem: 'TodoItem' };
/** Parent columns a record cannot exist without. */
const REQUIRED = new Set(['project_id', 'todo_list_id', 'commentable_id']);
/** Columns people edit (conflicts are about these): writable fields and completion. */
const EDITED = Object.fromEntries(TABLE_ORDER.map((k) => [k, new Set([
  ...writableFields(RESOURCES[k], 'create').map((f) => column(f.name)), 'completed', 'responsible_party_type',
])])) as Record<ResourceKey, Set<string>>;
const HIERARCHY: readonly ResourceKey[] = ['company', 'person', 'project', 'category', 'milestone', 'post', 'todoList', 'todoItem', 'comment', 'timeEntry'];

interface Pulled { resource: ResourceKey; row: WireRow; scope: string }
/** One feed page's or one scan part's records, applied as a set in one transaction. */
interface PageSet extends Scan { deletes: [ResourceKey, number][] }
/** Parents (by remote id) whose comments a plain scan reads even when their hints did not change. */
type DeepSlice = (remoteId: number) => boolean;
const NO_DEEP: DeepSlice = () => false;
interface Scan { items: Pulled[]; scopes: Set<string>; members: Map<number, Set<number>> }
interface Pending { cols: Set<string>; created: boolean; deleted: boolean }
/** Fold an outbox entry's row changes into `into`, per record (`table:id`): created, deleted, columns written. */
function addPending(into: Map<string, Pending>, changes: readonly { t: string; id: number; op: string; v?: Record<string, unknown> | null }[]): void {
  for (const c of changes) {
    const k = `${c.t}:${c.id}`;
    const p = into.get(k) ?? { cols: new Set<string>(), created: false, deleted: false };
    if (c.op === 'insert') p.created = true;
    else if (c.op === 'delete') p.deleted = true;
    else for (const col of Object.keys(c.v ?? {})) p.cols.add(col);
    into.set(k, p);
  }
}
/** Local work checked for pushing on connect (D150). */
interface Adoption { m: Matching; categories: Map<number, number>; seq: number; meUserName: string | null }

const add = (out: Scan, resource: ResourceKey, rows: WireRow[], scope: string): void => {
  out.scopes.add(scope);
  for (const row of rows) out.items.push({ resource, row, scope });
};

/** The scan scope a record belongs to (where a full scan would read it): deletions are found per scope. */
function scopeOf(res: ResourceKey, row: WireRow, P: number | null): string {
  switch (res) {
    case 'company': return 'companies';
    case 'person': return 'people';
    case 'project': return 'projects';
    case 'category': return `p${P}/categories`;
    case 'post': return `p${P}/posts`;
    case 'milestone': return `p${P}/milestones`;
    case 'todoList': return `p${P}/lists`;
    case 'todoItem': return `p${P}/items/${row.todo_list_id}`;
    case 'timeEntry': return `p${P}/time`;
    case 'comment': return `p${P}/c/${Object.entries(TYPE_OF).find(([, t]) => t === row.commentable_type)?.[0]}${row.commentable_id}`;
  }
}

/**
 * The `resource:remoteId` keys an apply of these records looks up in the id map: each record, what
 * its row references, and what its shadow (the merge base, in `prev`) references.
 */
function referencedKeys(items: readonly Pulled[], prev: ReadonlyMap<string, { row: WireRow }>): Set<string> {
  const keys = new Set<string>();
  const note: IdLookup = (r, id) => { keys.add(`${r}:${id}`); return undefined; };
  for (const { resource, row } of items) {
    keys.add(`${resource}:${row.id}`);
    rewriteIds(row, note);
    const base = prev.get(`${resource}:${row.id}`)?.row;
    if (base) rewriteIds(base, note);
  }
  return keys;
}

export class SyncEngine implements SyncPort {
  private readonly store: Store;
  private readonly o: EngineOptions;
  private remote: Remote | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  /** The one scheduled attempt (D255): a sync soon after a write, the interval's, or a retry after a failure. */
  private next: { handle: unknown; at: number; kind: 'soon' | 'interval' | 'retry' } | null = null;
  /** Failed attempts in a row (syncs, or background connects): the backoff's exponent. */
  private failures = 0;
  private retryAt = 0;
  /** A connect going on in the background (a start with --remote, D253) until it links or is refused. */
  private pendingConnect: { url: string; auth: RemoteAuth; resolve: () => void; reject: (e: Error) => void } | null = null;
  private connectAttempt: Promise<void> | null = null;
  /** Aborted by stop(): a connect still waiting on the remote's checks gives up (a close does not wait 15 s). */
  private halt = new AbortController();
  private state: SyncState = 'idle';
  private error: string | null = null;
  private progress: { done: number; total: number; phase: 'pull' | 'push' } | null = null;
  private kind: 'team' | 'plain' | null = null;
  private stopped = false;
  /** The team server's change stream, followed while started (electron/sync/live.ts, D305). */
  private live: { remote: Remote; f: LiveFollower } | null = null;
  /** Started (start(), or a connect in the background) and not stopped since: the stream is followed (D305). */
  private started = false;
  /** The last success of a sync that committed nothing (not written: an idle sync commits nothing, D307). */
  private idleSuccessAt: string | null = null;
  /** When the remote stopped answering (first failure of the current offline spell), ISO; null while online. */
  private offlineSince: string | null = null;

  private readonly vault: TokenVault;

  constructor(o: EngineOptions) {
    this.store = o.store;
    this.o = o;
    this.vault = !o.dataDir ? (o.tokenVault ?? new MemoryTokenVault())
      : o.tokenVault ? replacingTokenFile(o.dataDir, o.tokenVault) : new FileTokenVault(o.dataDir);
  }

  // ---- connection -------------------------------------------------------------------------------

  /** Resume a saved connection (token file + state) on start; false when standalone. */
  async resume(): Promise<boolean> {
    const st = await q.state(this.store);
    const url = st.get('url');
    // A disconnected replica keeps recording its outbox (D151).
    if (!url) { this.store.recordOutbox = st.has('was_url'); return false; }
    const token = await this.readToken();
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
    await this.refuseShared(o.caller ?? null);
    let u: URL;
    try {
      u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    } catch {
      throw new ConnectError(422, `Remote URL is invalid: ${url}`);
    }
    const target = url.replace(/\/+$/, '');
    const st = await q.state(this.store);
    // Linked to another remote: refused at once, without asking the new one anything.
    if (st.get('url') && st.get('url') !== target) {
      throw new ConnectError(409, `This data directory is a replica of ${st.get('url')}: disconnect it first or use an empty data directory; nothing was changed`);
    }
    const probe = this.remoteFor(url, auth);
    const halt = this.halt.signal;
    let me: Awaited<ReturnType<Remote['me']>>;
    try {
      me = await untilStopped(probe.me(), halt);
    } catch (e) {
      if (e instanceof ConnectError) throw e;
      if (e instanceof RemoteUnreachable) throw new ConnectError(502, `Remote is unreachable: ${e.message}`, { transient: true });
      if (e instanceof RemoteError && e.status === 401) throw new ConnectError(422, 'The remote refused these credentials (401)');
      if (e instanceof RemoteError && (e.status >= 500 || e.status === 429)) {
        throw new ConnectError(502, `The remote could not answer (${e.message})`, { transient: true, retryAfterMs: retryAfterMs(e.retryAfter, e.remoteNow, Date.now()) });
      }
      if (e instanceof RemoteError) throw new ConnectError(422, `Not a Bivouac/Basecamp API at ${url}: ${e.message}`);
      throw e;
    }
    const token = 'token' in auth ? auth.token : me.token;
    if (!token) throw new ConnectError(422, 'The remote does not show this person\'s API token on /me.xml: connect with a token instead');
    const selfRemote = Number(me.id);
    // What this directory is to this remote (D150): checked in full before anything changes.
    let adopt: Adoption | null = null;
    if (st.get('url')) {
      if (Number(st.get('self_remote')) !== selfRemote) {
        throw new ConnectError(409, `This data directory is a replica of ${st.get('url')} (another account or person): disconnect it first or use an empty data directory`);
      }
    } else if (st.get('was_url') === probe.url) {
      // A disconnected replica: the same person resumes (its pending work is pushed by the sync below).
      if (Number(st.get('was_self')) !== selfRemote) {
        throw new ConnectError(409, `This data directory was a replica of ${probe.url} as ${st.get('was_user') || 'another person'}: its records are that person's copy of this remote, and pushing them as someone else would duplicate them. Connect as ${st.get('was_user') || 'that person'}, or use an empty data directory; nothing was changed`);
      }
    } else if (!(await this.store.isEmpty())) {
      if ((await setupStatus(this.store)).demo) {
        throw new ConnectError(409, 'This data directory holds the demo account, whose sample data is not pushed to a remote: connect an empty data directory (bivouac serve --data-dir NEW --remote …); nothing was changed');
      }
      adopt = await untilStopped(this.planAdoption(probe, me, o.caller ?? null), halt);
    }
    // What to put back if the first sync is refused (D256): everything, when the directory is new to this
    // remote (empty, or local work being adopted); else the link alone (the data is this person's copy of it).
    const before = {
      snap: !st.get('url') && st.get('was_url') !== probe.url ? await life.snapshot(this.store) : null,
      state: st, token: await this.readToken(), remote: this.remote, recordOutbox: this.store.recordOutbox, kind: this.kind,
    };
    const pwHash = 'password' in auth ? await hashPassword(auth.password) : null;
    await this.writeToken(token);
    try {
      await this.store.write(async (w) => {
        w.outbox?.mute();
        if (adopt) await this.adopt(w, adopt, pwHash);
        for (const k of ['was_url', 'was_self', 'was_user'] as const) await q.setState(w, k, null);
        await q.setState(w, 'url', probe.url);
        await q.setState(w, 'user', 'user' in auth ? auth.user : String(me.user_name ?? ''));
        await q.setState(w, 'self_remote', String(selfRemote));
        if (!st.get('client') || adopt) await q.setState(w, 'client', randomBytes(8).toString('hex'));
        if (pwHash) await q.setState(w, 'password_hash', pwHash);
      });
    } catch (e) {
      await this.putToken(before.token); // nothing was linked: the token as it was
      throw e;
    }
    const linked = await q.outbox(this.store);
    const rejectedBefore = (await q.counts(this.store)).rejected;
    this.remote = this.remoteFor(probe.url, { token });
    this.store.recordOutbox = true;
    this.retryAt = 0;
    this.failures = 0;
    try {
      await this.run();
    } catch (e) {
      // Linked: the connect stands and the clone (or the push of adopted work) goes on when the remote
      // answers again; the status says why it stopped.
      if (transient(e)) return;
      // Refused: put the directory back, unless something already reached the remote or was written here
      // meanwhile (then the link stands, and the status says why the sync stopped).
      const now = await q.outbox(this.store);
      const untouched = now.length === linked.length && now.every((x, k) => x.seq === linked[k].seq && !x.inDoubt && x.doneSteps === 0)
        && (await q.counts(this.store)).rejected === rejectedBefore;
      if (!untouched) return;
      await this.rollback(before);
      if (e instanceof ConnectError) throw e;
      throw new ConnectError(502, `The remote refused the first sync, so this data directory was left as it was (not connected): ${(e as Error).message}`);
    }
  }

  /** Put the directory back as it was before a connect (D256): data or link, token, engine state. */
  private async rollback(b: { snap: life.Snapshot | null; state: q.SyncState; token: string | null; remote: Remote | null; recordOutbox: boolean | undefined; kind: SyncEngine['kind'] }): Promise<void> {
    this.remote = b.remote;
    this.unschedule();
    await this.running?.catch(() => undefined);
    await this.store.write(async (w) => {
      w.outbox?.mute();
      if (b.snap) await life.restore(w, this.store.dialect, b.snap);
      else await life.restoreState(w, b.state);
    });
    this.store.recordOutbox = b.recordOutbox;
    await this.putToken(b.token);
    this.kind = b.kind;
    this.failures = 0;
    this.retryAt = 0;
    this.state = 'idle';
    this.error = null;
    this.progress = null;
  }

  /**
   * Refuse to make a replica of a server used by more than one person (D254), before anything else
   * (the remote URL is not requested): a server that serves a network, one on PostgreSQL, or an
   * account where someone other than the asking person (or the owner) has signed in.
   */
  private async refuseShared(caller: number | null): Promise<void> {
    const why = this.o.network ?? (this.store.dialect === 'postgres' ? 'it keeps its data in PostgreSQL (--store)' : null);
    const refuse = (reason: string) => new ConnectError(409, `This server is used by more than one person (${reason}): only the local service of one person's desktop app can become a replica of a remote. A team server stays a team server; nothing was changed and the remote was not contacted`);
    if (why) throw refuse(why);
    const me = caller !== null ? await life.userNameOf(this.store, caller)
      : (await ownerId(this.store)) !== null ? await life.userNameOf(this.store, (await ownerId(this.store))!) : (await ownerCredentials(this.store))?.user_name ?? null;
    const others = (await life.signedInUserNames(this.store)).filter((n) => n !== me);
    if (others.length) throw refuse(`${others.length === 1 ? 'another person has' : `${others.length} other people have`} signed in to it`);
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
    await this.store.write(async (w) => {
      w.outbox?.mute();
      const st = await q.state(w);
      if (!st.get('url')) return;
      await q.setState(w, 'was_url', st.get('url')!);
      await q.setState(w, 'was_self', st.get('self_remote') ?? '');
      await q.setState(w, 'was_user', st.get('user') ?? '');
      for (const k of ['url', 'self_remote', 'user'] as const) await q.setState(w, k, null);
    });
    this.store.recordOutbox = (await q.state(this.store)).has('was_url');
    await this.vault.remove();
    this.memToken = null;
    this.state = 'idle';
    this.error = null;
  }

  /**
   * Check that this directory's local work can all be pushed to the remote (D150), reading only;
   * a ConnectError (409) lists everything that blocks it.
   */
  private async planAdoption(remote: Remote, me: WireRow, caller: number | null): Promise<Adoption> {
    try {
      // Any local write from here to the link is seen (the change feed's sequence) and refuses the link.
      const seq = await lastChangeSeq(this.store);
      const caps = await remote.capabilities();
      const companies = await remote.list('company', '/companies.xml');
      const people: WireRow[] = [];
      for (const c of companies) people.push(...await remote.list('person', `/contacts/people/${c.id}`));
      const projects = await remote.list('project', '/projects.xml');
      const local = { companies: await q.allRows(this.store, 'companies'), people: await q.allRows(this.store, 'people'), projects: await q.allRows(this.store, 'projects'), caller };
      const admin = String(me.administrator) === 'true' || Number(me.administrator) === 1;
      const m = matchAccount(local, { me, companies, people, projects, canCreateProjects: (caps.feed || caps.idempotency) && admin });
      const cats = new Map<number, WireRow[]>();
      const members = new Map<number, Set<number>>();
      for (const P of new Set(m.projects.values())) {
        cats.set(P, await remote.list('category', `/projects/${P}/categories.xml`));
        const set = new Set<number>();
        for (const c of await remote.list('company', `/projects/${P}/companies.xml`)) {
          for (const p of await remote.list('person', `/projects/${P}/contacts/people/${c.id}`)) set.add(Number(p.id));
        }
        members.set(P, set);
      }
      const categories = matchCategories(await q.allRows(this.store, 'categories'), m.projects, cats);
      const personName = (id: number) => {
        const p = local.people.find((x) => Number(x.id) === id);
        return p ? `${String(p.first_name ?? '')} ${String(p.last_name ?? '')}`.trim() || String(p.user_name ?? id) : `person ${id}`;
      };
      const projectName = (id: number) => String(local.projects.find((x) => Number(x.id) === id)?.name ?? id);
      const blocks = [...m.blocks, ...blockedTime(await q.allRows(this.store, 'time_entries'), m, Number(me.id), members, personName, projectName)];
      if (blocks.length) {
        throw new ConnectError(409, `This data directory holds local work that cannot be pushed to ${remote.url}, so nothing was changed: ${blocks.join('; ')}`);
      }
      return { m, categories, seq, meUserName: typeof me.user_name === 'string' && me.user_name ? me.user_name : null };
    } catch (e) {
      if (e instanceof RemoteUnreachable) throw new ConnectError(502, `Remote is unreachable: ${e.message}`);
      if (e instanceof RemoteError) throw new ConnectError(502, `The remote failed while the local work was checked (nothing was changed): ${e.message}`);
      throw e;
    }
  }

  /**
   * Link the checked local work to the remote (one transaction, with the new sync state): the
   * matched records go into the id map, everything else in the projects into the outbox as
   * creates, parents before children (lists and items in their local order); the normal push
   * sends them. References to people or companies with no match are left out (cleared remotely).
   */
  private async adopt(w: Writer, a: Adoption, pwHash: string | null): Promise<void> {
    const { m } = a;
    if (await lastChangeSeq(w) !== a.seq) {
      throw new ConnectError(409, 'The local data changed while it was being checked against the remote, so nothing was changed: connect again');
    }
    await q.forgetRemote(w);
    const maps: [ResourceKey, Map<number, number>][] = [['company', m.companies], ['person', m.people], ['project', m.projects], ['category', a.categories]];
    for (const [res, map] of maps) for (const [l, r] of map) await q.mapId(w, res, l, r);
    if (m.me !== null && pwHash) await q.setPersonSecrets(w, m.me, (await q.personSecrets(w, m.me))?.token ?? newToken(), pwHash);
    await q.lockOthers(w, m.me, a.meUserName);
    const create = new Set(m.create);
    for (const res of ['project', 'category', 'milestone', 'post', 'todoList', 'todoItem', 'comment', 'timeEntry'] as const) {
      const R = RESOURCES[res];
      const cols = new Set([...writableFields(R, 'create').map((f) => column(f.name)), 'project_id', 'todo_list_id', 'commentable_type', 'commentable_id', 'responsible_party_type']);
      for (const row of await q.allRows(w, R.table)) {
        const id = Number(row.id);
        if (res === 'project' ? !create.has(id) : res === 'category' && a.categories.has(id)) continue;
        const v: WireRow = {};
        for (const c of cols) if (c in row) v[c] = row[c];
        for (const c of Object.keys(v)) {
          const ref = refResource(c, v);
          if ((ref === 'person' && !m.people.has(Number(v[c]))) || (ref === 'company' && !m.companies.has(Number(v[c])))) {
            v[c] = null;
            if (c === 'responsible_party_id') v.responsible_party_type = null;
          }
        }
        await q.appendOutbox(w, w.now, [{ t: R.table, id, op: 'insert', v }]);
        if ((res === 'todoItem' || res === 'milestone') && Number(row.completed) === 1) {
          await q.appendOutbox(w, w.now, [{ t: R.table, id, op: 'update', v: { completed: 1 } }]);
        }
      }
    }
  }

  private remoteFor(url: string, auth: RemoteAuth): Remote {
    return new Remote({ url, auth, timeoutMs: this.o.timeoutMs, maxAnswerBytes: Math.max(1, this.o.maxAnswerMb ?? DEFAULT_MAX_ANSWER_MB) * 1024 * 1024 });
  }

  /** A remote record refused alone (D251, D252): logged, the rest goes on. */
  private refuse(message: string): void {
    if (this.o.onRefused) this.o.onRefused(message);
    else process.stderr.write(`bivouac sync: refused from the remote: ${message}\n`);
  }

  private memToken: string | null = null;
  private async writeToken(token: string): Promise<void> {
    this.memToken = token;
    await this.vault.write(token);
  }
  private async readToken(): Promise<string | null> {
    if (this.memToken) return this.memToken;
    return this.vault.read();
  }
  /** Put the token back as it was (null: none). */
  private async putToken(token: string | null): Promise<void> {
    if (token) await this.writeToken(token);
    else {
      await this.vault.remove();
      this.memToken = null;
    }
  }

  // ---- scheduling (D255) --------------------------------------------------------------------------

  private get timers(): Timers { return this.o.timers ?? REAL_TIMERS; }

  /**
   * Arm the one timer `ms` from now. A retry replaces whatever was armed; a sync soon or the interval's
   * keeps an earlier timer (a write during a backoff waits for the retry: the remote is not hammered).
   */
  private schedule(ms: number, kind: 'soon' | 'interval' | 'retry'): void {
    if (this.stopped) return;
    const wait = Math.max(0, ms);
    const at = this.timers.now() + wait;
    if (this.next) {
      if (kind !== 'retry' && this.next.at <= at) return;
      this.timers.clear(this.next.handle);
    }
    const handle = this.timers.set(() => {
      this.next = null;
      if (this.pendingConnect) void this.attemptConnect().catch(() => undefined);
      else void this.run().catch(() => undefined);
    }, wait);
    this.next = { handle, at, kind };
  }

  private unschedule(): void {
    if (this.next) this.timers.clear(this.next.handle);
    this.next = null;
  }

  /** After an attempt: a success resets the backoff and arms the interval; a failure arms the next retry. */
  private settle(e: unknown): void {
    const now = this.timers.now();
    if (e === null) {
      this.failures = 0;
      this.retryAt = 0;
      if (this.next?.kind === 'retry') this.unschedule();
      const sec = this.o.intervalSec ?? 30;
      // While the team server's stream is open, the interval is only a safety net (D306).
      if (sec > 0) this.schedule((this.live?.f.open ? Math.max(sec, LIVE_INTERVAL_SEC) : sec) * 1000, 'interval');
      return;
    }
    this.failures++;
    const after = e instanceof Backoff ? e.retryAfterMs
      : e instanceof RemoteError && (e.status === 429 || e.status === 503) ? retryAfterMs(e.retryAfter, e.remoteNow, Date.now(), this.o.backoff)
        : e instanceof ConnectError ? e.retryAfterMs : null;
    const delay = nextDelay(this.failures, after, this.o.random ?? Math.random, this.o.backoff ?? BACKOFF);
    this.retryAt = now + delay;
    this.schedule(delay, 'retry');
  }

  /** Sync on the interval, and after a failure when its backoff ends. */
  start(): void {
    this.stopped = false;
    this.started = true;
    if (this.kind === 'team') this.follow();
    if (this.next || this.connectAttempt || this.running) return;
    const wait = this.retryAt - this.timers.now();
    if (this.pendingConnect || wait > 0) this.schedule(wait, 'retry');
    else if (this.remote && (this.o.intervalSec ?? 30) > 0) this.schedule((this.o.intervalSec ?? 30) * 1000, 'interval');
  }

  /** Follow the team server's change stream (D305): a change there is a sync soon. Once per remote. */
  private follow(): void {
    const remote = this.remote;
    // Followed once started; an engine on an injected clock (tests, bench) only when asked.
    if (this.stopped || !this.started || !remote || !(this.o.live ?? this.o.timers === undefined)) return;
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
    this.stopped = true;
    this.started = false;
    this.live?.f.stop();
    this.unschedule();
    this.halt.abort();
    this.halt = new AbortController();
  }

  /** A local write happened: sync soon (debounced), never blocking the writer, never before a retry is due. */
  nudge(delayMs?: number): void {
    if (!this.remote || this.stopped) return;
    // Following a team server's stream, teammates wait for this push: a shorter debounce (D305).
    const d = delayMs ?? (this.live?.f.open ? LIVE_DEBOUNCE_MS : 250);
    this.schedule(Math.max(d, this.retryAt - this.timers.now()), 'soon');
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
      this.failures = 0;
      this.retryAt = 0;
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
        if (e instanceof ConnectError && e.transient) {
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
  get retryInMs(): number { return Math.max(0, this.retryAt - this.timers.now()); }
  /** Failed attempts in a row (0 after a success). */
  get failureCount(): number { return this.failures; }
  /** Requests sent to the remote so far (tests, bench). */
  get requests(): number { return this.remote?.requests ?? 0; }

  async status(): Promise<SyncStatus> {
    const st = await q.state(this.store);
    const c = await q.counts(this.store);
    const stored = st.get('last_success_at') ?? null;
    const last = this.idleSuccessAt && (!stored || this.idleSuccessAt > stored) ? this.idleSuccessAt : stored;
    const p = this.pendingConnect;
    const retry = this.retryInMs;
    return {
      state: this.remote ? this.state : p ? 'connecting' : this.state === 'error' && this.error ? 'error' : 'local', lastSuccessAt: last, ...c, progress: this.progress,
      remote: st.get('url') ? { url: st.get('url')!, user: st.get('user') ?? null, kind: this.kind }
        : p ? { url: p.url.replace(/\/+$/, ''), user: 'user' in p.auth ? p.auth.user : null, kind: null } : null,
      error: this.error, nextAttemptAt: retry > 0 ? new Date(Date.now() + retry).toISOString() : null,
      offlineSince: this.remote && this.state === 'offline' ? this.offlineSince : null, live: this.following,
      // The names the desktop shell reads (docs/desktop-shell.md).
      lastSyncedAt: last, message: this.error,
    };
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
        } while (this.again && !this.stopped);
      } finally {
        this.running = null;
        this.progress = null;
      }
    })();
    return this.running;
  }

  private async once(): Promise<void> {
    const remote = this.remote;
    if (!remote) throw new ConnectError(409, 'No remote is connected');
    this.state = 'syncing';
    this.error = null;
    try {
      const caps = await remote.capabilities();
      this.kind = caps.feed || caps.idempotency ? 'team' : 'plain';
      const before = await this.store.changeToken();
      // A write whose answer was lost is settled first: otherwise the pull would take its
      // committed result for someone else's new record.
      await this.push(remote, caps.idempotency, true);
      // A pull is bounded (D248): what it did not reach is read by the next run, after the push.
      const complete = await this.pull(remote, caps.feed);
      const pushed = await this.push(remote, caps.idempotency);
      if (pushed && complete) await this.pull(remote, caps.feed);
      if (!complete && !this.stopped) this.nudge(1000);
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

  // ---- pull -------------------------------------------------------------------------------------

  /** A list of the public routes, its unrepresentable records refused alone (D251). */
  private async safeList(remote: Remote, resource: ResourceKey, path: string): Promise<WireRow[]> {
    return this.safeRows(resource, await remote.list(resource, path), path);
  }

  private safeRows(resource: ResourceKey, rows: WireRow[], where: string): WireRow[] {
    return rows.filter((row) => {
      const why = unrepresentable(row);
      if (why) this.refuse(`a ${resource} in ${where} cannot be represented here: ${why}`);
      return !why;
    });
  }

  /**
   * A plain server: read everything the remote person can see through the public routes, applied in
   * parts (D248): companies, people and projects in one transaction, then each project in its own, so
   * that memory holds one project at a time. Deletions are found per scope, as each part is applied.
   */
  private async pullScan(remote: Remote): Promise<boolean> {
    const st = await q.state(this.store);
    const prev = await q.shadows(this.store);
    // Plain scans rotate through N slices of the comment lists (deepScanEvery): slice `round mod N` now.
    const every = Math.max(0, Math.floor(this.o.deepScanEvery ?? 10));
    const round = Number(st.get('scan_round') ?? 0);
    const deep: DeepSlice = every === 0 ? NO_DEEP : (id) => id % every === round % every;
    const top: PageSet = { items: [], scopes: new Set(), members: new Map(), deletes: [] };
    let done = 0;
    const companies = await this.safeList(remote, 'company', '/companies.xml');
    add(top, 'company', companies, 'companies');
    const projects = await this.safeList(remote, 'project', '/projects.xml');
    add(top, 'project', projects, 'projects');
    // Progress: one step per company (its people) and per project (everything in it).
    const total = companies.length + projects.length;
    const tick = () => this.report('pull', ++done, total);
    this.report('pull', 0, total);
    top.scopes.add('people');
    for (const c of companies) {
      add(top, 'person', await this.safeList(remote, 'person', `/contacts/people/${c.id}`), 'people');
      tick();
    }
    await this.applySet(top, prev, null, { park: false });
    for (const p of projects) {
      const part: PageSet = { items: [], scopes: new Set(), members: new Map(), deletes: [] };
      await this.scanProject(remote, Number(p.id), prev, part, deep);
      await this.applySet(part, prev, null, { park: false });
      tick();
    }
    if (every > 0) await this.store.write(async (w) => { w.outbox?.mute(); await q.setState(w, 'scan_round', String((round + 1) % every)); });
    return true;
  }

  /** Members of a project (the interface has no member list: its companies' people in it). */
  private async members(remote: Remote, P: number, out: Scan): Promise<void> {
    const m = new Set<number>();
    for (const c of await this.safeList(remote, 'company', `/projects/${P}/companies.xml`)) {
      for (const person of await this.safeList(remote, 'person', `/projects/${P}/contacts/people/${c.id}`)) m.add(Number(person.id));
    }
    out.members.set(P, m);
  }

  /** A list that pages on without end (or repeats its pages) stops the scan with a clear error (D248). */
  private endless(what: string): never {
    throw new RemoteFeedBroken(200, `The remote's ${what} does not end (more than ${MAX_LIST_PAGES} pages, or the same page again): sync stopped`);
  }

  /**
   * Everything inside one project; comments only of parents whose count or newest comment changed,
   * and of the parents in this scan's deep slice (a body-only comment edit changes no hint).
   */
  private async scanProject(remote: Remote, P: number, prev: Map<string, { row: WireRow; scope: string }>, out: Scan, deep: DeepSlice = NO_DEEP): Promise<void> {
    await this.members(remote, P, out);
    add(out, 'category', await this.safeList(remote, 'category', `/projects/${P}/categories.xml`), `p${P}/categories`);
    const posts: WireRow[] = [];
    let last = '';
    for (let n = 0; ; n += 25) {
      if (n / 25 >= MAX_LIST_PAGES) this.endless(`post list of project ${P}`);
      const raw = await remote.list('post', `/projects/${P}/posts.xml?n=${n}`);
      const ids = raw.map((r) => r.id).join(',');
      if (raw.length && ids === last) this.endless(`post list of project ${P}`);
      last = ids;
      posts.push(...this.safeRows('post', raw, `/projects/${P}/posts.xml`));
      if (raw.length < 25) break;
    }
    add(out, 'post', posts, `p${P}/posts`);
    const milestones = await this.safeList(remote, 'milestone', `/projects/${P}/milestones/list`);
    add(out, 'milestone', milestones, `p${P}/milestones`);
    const lists = await this.safeList(remote, 'todoList', `/projects/${P}/todo_lists.xml`);
    add(out, 'todoList', lists, `p${P}/lists`);
    const items: WireRow[] = [];
    for (const l of lists) {
      const its = await this.safeList(remote, 'todoItem', `/todo_lists/${l.id}/todo_items.xml`);
      add(out, 'todoItem', its, `p${P}/items/${l.id}`);
      items.push(...its);
    }
    const entries: WireRow[] = [];
    for (let page = 1; ; page++) {
      if (page > MAX_LIST_PAGES) this.endless(`time entry list of project ${P}`);
      const { root, headers } = await remote.getXml(`/projects/${P}/time_entries.xml?page=${page}`);
      entries.push(...this.safeRows('timeEntry', decodeCollection(RESOURCES.timeEntry, root), `/projects/${P}/time_entries.xml`));
      if (page >= Number(headers.get('x-pages') ?? 1)) break;
    }
    add(out, 'timeEntry', entries, `p${P}/time`);
    for (const [res, rows] of [['post', posts], ['milestone', milestones], ['todoItem', items]] as const) {
      for (const parent of rows) {
        const before = prev.get(`${res}:${parent.id}`)?.row;
        if (before && before._comments_count === parent._comments_count && before._commented_at === parent._commented_at && !deep(Number(parent.id))) continue;
        const scope = `p${P}/c/${res}${parent.id}`;
        if (Number(parent._comments_count ?? 0) === 0) { out.scopes.add(scope); continue; }
        const comments: WireRow[] = [];
        let path: string | null = `/${KIND_OF[res]}/${parent.id}/comments.xml`;
        const visited = new Set<string>();
        while (path) {
          if (visited.has(path) || visited.size >= MAX_LIST_PAGES) this.endless(`comment list of ${res} ${parent.id}`);
          visited.add(path);
          const { root } = await remote.getXml(path);
          comments.unshift(...this.safeRows('comment', decodeCollection(RESOURCES.comment, root), path));
          path = root?.attrs['continued-at'] ?? null;
        }
        add(out, 'comment', comments, scope);
      }
    }
  }

  /**
   * The team server's change feed since the saved cursor (O(changes)), page by page: each page is
   * applied with its cursor in ONE transaction (D248), so memory holds one page and an interrupted
   * pull (a kill, the run's bound) goes on from the last saved page without duplicates. A run reads
   * at most `maxPullPages` pages and `maxPullMs`; a cursor that does not advance with `more: true`
   * stops it. From cursor 0 (a clone) or after a 410, the feed is a full resync: a round marker kept
   * in the state until its last page, which removes what the round did not bring. Returns whether
   * the feed's end was reached.
   */
  private async pullFeed(remote: Remote): Promise<boolean> {
    const st = await q.state(this.store);
    let since = st.get('cursor') ?? null;
    let round = st.get('resync') ?? (since === null ? String(Date.now()) : null);
    let start = Number(since ?? 0);
    const maxPages = Math.max(1, this.o.maxPullPages ?? 250);
    const until = Date.now() + Math.max(1, this.o.maxPullMs ?? 120_000);
    let read = 0;
    for (;;) {
      if (read >= maxPages || (read > 0 && Date.now() >= until)) return false;
      let page: Awaited<ReturnType<Remote['changes']>>;
      try {
        page = await remote.changes(since ?? '0', 1000);
      } catch (e) {
        if (e instanceof RemoteError && e.status === 410 && since !== null && since !== '0') {
          since = null;
          start = 0;
          round = String(Date.now());
          continue;
        }
        throw e;
      }
      read++;
      for (const m of page.refused) this.refuse(m);
      if (page.more && !cursorAfter(since ?? '0', page.cursor)) {
        throw new RemoteFeedBroken(200, `The remote's change feed does not advance (more: true with the cursor ${page.cursor} after ${since ?? '0'}): sync stopped; it goes on when the remote's feed moves again`);
      }
      // Progress in commit sequence numbers: how far the cursor goes with this page of what there is to read
      // (told before the page is applied, which is most of a page's time: a one-page clone shows it too).
      if (page.clock !== null && page.clock > start) this.report('pull', Math.min(Number(page.cursor), page.clock) - start, page.clock - start);
      else this.report('pull', read, 0);
      // Nothing new (the same cursor, no change, no round, nothing parked): nothing to commit (D307).
      const idle = !page.more && !page.changes.length && page.cursor === (since ?? '0') && round === null && !(await q.hasParked(this.store));
      if (!idle) await this.applyPage(remote, page, round, !page.more);
      since = page.cursor;
      if (!page.more) round = null;
      if (!page.more) return true;
    }
  }

  /** One feed page: the shadows it needs, the projects it resyncs, then applied with its cursor in one transaction. */
  private async applyPage(remote: Remote, page: Awaited<ReturnType<Remote['changes']>>, round: string | null, last: boolean): Promise<void> {
    const latest = new Map<string, FeedChange>();
    for (const c of page.changes) latest.set(`${c.resource}:${c.id}`, c);
    const prev = new Map<string, { row: WireRow; scope: string }>();
    const parentOf = (row: WireRow | undefined): string[] => {
      if (!row) return [];
      const keys: string[] = [];
      if (row.todo_list_id) keys.push(`todoList:${row.todo_list_id}`);
      const pr = Object.entries(TYPE_OF).find(([, t]) => t === row.commentable_type)?.[0];
      if (pr) keys.push(`${pr}:${row.commentable_id}`);
      return keys;
    };
    const keys = new Set<string>();
    for (const c of latest.values()) { keys.add(`${c.resource}:${c.id}`); for (const k of parentOf(c.record)) keys.add(k); }
    await q.shadowsByKeys(this.store, keys, prev);
    const second = new Set<string>();
    for (const k of keys) for (const p of parentOf(prev.get(k)?.row ?? latest.get(k)?.record)) if (!prev.has(p)) second.add(p);
    await q.shadowsByKeys(this.store, second, prev);
    for (const c of latest.values()) if (c.op === 'resync' && c.resource === 'project') await q.shadowsInScope(this.store, `p${c.id}/`, prev);
    const out: PageSet = { items: [], scopes: new Set<string>(), members: new Map<number, Set<number>>(), deletes: [] };
    const projectOf = (res: ResourceKey, row: WireRow): number | null => {
      if (row.project_id !== undefined && row.project_id !== null) return Number(row.project_id);
      const up = (r: ResourceKey, id: unknown) => latest.get(`${r}:${id}`)?.record ?? prev.get(`${r}:${id}`)?.row;
      if (res === 'todoItem') return Number(up('todoList', row.todo_list_id)?.project_id ?? NaN);
      if (res === 'comment') {
        const parentRes = Object.entries(TYPE_OF).find(([, t]) => t === row.commentable_type)?.[0] as ResourceKey | undefined;
        const parent = parentRes ? up(parentRes, row.commentable_id) : undefined;
        if (!parent) return null;
        return parent.project_id !== undefined ? Number(parent.project_id) : Number(up('todoList', parent.todo_list_id)?.project_id ?? NaN);
      }
      return null;
    };
    for (const c of [...latest.values()].sort((a, b) => a.seq - b.seq)) {
      if (c.op === 'resync' && c.resource === 'project') {
        add(out, 'project', await this.safeList(remote, 'project', `/projects/${c.id}.xml`), 'projects');
        await this.scanProject(remote, c.id, prev, out);
      } else if (c.op === 'delete') {
        out.deletes.push([c.resource, c.id]);
      } else if (c.op === 'upsert' && c.record) {
        const row = c.record;
        const why = unrepresentable(row);
        if (why || row.id !== c.id) { this.refuse(`the ${c.resource} ${c.id} of the change feed cannot be represented here: ${why ?? 'its record has another id'}`); continue; }
        const P = projectOf(c.resource, row);
        out.items.push({ resource: c.resource, row, scope: scopeOf(c.resource, row, P) });
        if (c.resource === 'project' && (round !== null || !prev.has(`project:${c.id}`))) await this.members(remote, c.id, out);
      }
    }
    if (round !== null) for (const p of out.items) p.row = { ...p.row, _round: round };
    // A page of upserts alone (no delete, no new project, no resync, not a resync round) maps only the
    // ids its records and their shadows name (O(changes)); anything else reads the whole id map (D170).
    // Deletions: their keys too; a deletion of a record held here reads the whole id map (applySet), one of a
    // record never held (most of an endless feed's) does not.
    const mapped = round === null && !out.members.size && !out.scopes.size
      ? new Set([...referencedKeys(out.items, prev), ...out.deletes.map(([r, id]) => `${r}:${id}`)]) : null;
    await this.applySet(out, prev, mapped, { park: !last, round, last, cursor: page.cursor });
  }

  private report(phase: 'pull' | 'push', done: number, total: number): void {
    this.progress = { done, total, phase };
    this.o.onProgress?.({ phase, done, total });
  }

  private async pull(remote: Remote, feed: boolean): Promise<boolean> {
    return feed ? this.pullFeed(remote) : this.pullScan(remote);
  }

  /**
   * Apply one set (a feed page, or a part of a plain scan) in one transaction: records parents
   * first, memberships, what the remote no longer shows in the scopes read; for a feed page also
   * its cursor, its parked records (D248) and, on the last page of a resync round, what the round
   * did not bring.
   */
  private async applySet(set: PageSet, prev: Map<string, { row: WireRow; scope: string }>, mapped: Set<string> | null,
    o: { park: boolean; round?: string | null; last?: boolean; cursor?: string }): Promise<void> {
    await this.store.write(async (w) => {
      w.outbox?.mute();
      const ctx = { ...(await this.applyContext(w, mapped)), park: o.park, parked: o.cursor !== undefined && await q.hasParked(w) };
      // Removing a record held here walks what it holds: that needs the whole id map.
      if (mapped && set.deletes.some(([r, id]) => ctx.ids.toLocal.has(`${r}:${id}`))) ctx.ids = await q.idMap(w);
      const seen = new Set<string>();
      // The feed's last page: the records parked on earlier pages go with it, each kind after the page's
      // own records of that kind (newer), parents first (D248); what still misses a parent never comes.
      const flush = o.last === true && ctx.parked;
      if (flush) ctx.park = false;
      for (const res of TABLE_ORDER) {
        for (const p of set.items) if (p.resource === res) await this.applyOne(w, ctx, p, seen);
        if (flush) {
          for (const p of await q.parkedRows(w, res)) {
            await this.applyOne(w, ctx, { resource: res, row: o.round ? { ...p.row, _round: o.round } : p.row, scope: p.scope }, seen);
          }
        }
      }
      if (flush) await q.dropParked(w);
      // Memberships of the visible projects.
      for (const [P, people] of set.members) {
        const local = ctx.ids.toLocal.get(`project:${P}`);
        if (local === undefined) continue;
        const want = new Set([...people].map((x) => ctx.ids.toLocal.get(`person:${x}`)).filter((x): x is number => x !== undefined));
        for (const m of await q.membersOf(w, local)) if (!want.has(Number(m.person_id))) await q.dropMember(w, local, Number(m.person_id));
        for (const x of want) await q.addMember(w, local, x);
      }
      // What the remote no longer shows (deleted, or no longer visible) goes, with what it holds.
      const gone = [...prev].filter(([k, s]) => set.scopes.has(s.scope) && !seen.has(k));
      for (const [res, id] of set.deletes) {
        if (seen.has(`${res}:${id}`)) continue;
        gone.push([`${res}:${id}`, { row: {}, scope: '' }]);
        if (ctx.parked) await q.unpark(w, res, id);
      }
      if (o.last && o.round) {
        for (const [k, s] of await q.shadows(w)) if (s.row._round !== o.round && !seen.has(k)) gone.push([k, s]);
      }
      gone.sort((a, b) => HIERARCHY.indexOf(a[0].split(':')[0] as ResourceKey) - HIERARCHY.indexOf(b[0].split(':')[0] as ResourceKey));
      for (const [k] of gone) {
        const [res, rid] = k.split(':');
        const local = ctx.ids.toLocal.get(k);
        if (local !== undefined) await this.removeLocal(w, ctx, res as ResourceKey, local, 'remote');
        await q.dropShadow(w, res as ResourceKey, Number(rid));
        if (local !== undefined) await q.unmapLocal(w, res as ResourceKey, local);
      }
      if (o.cursor !== undefined) {
        await q.setState(w, 'cursor', o.cursor);
        await q.setState(w, 'resync', o.last ? null : o.round ?? null);
      }
    });
  }

  /** `mapped`: read only these `resource:remoteId` keys of the id map (null: all of it). */
  private async applyContext(w: Writer, mapped: Set<string> | null = null) {
    const ids = mapped ? await q.idsByRemote(w, mapped) : await q.idMap(w);
    const pending = new Map<string, Pending>();
    for (const e of await q.outbox(w)) addPending(pending, e.changes);
    const st = await q.state(w);
    return {
      ids, pending, selfRemote: Number(st.get('self_remote')), passwordHash: st.get('password_hash') ?? null, now: w.now,
      /** Park a record that names one not here yet (a feed page before its last, D248). */
      park: false as boolean,
      /** Parked records may exist (each applied or deleted record is taken off that list). */
      parked: false as boolean,
    };
  }

  /** Local values of a remote row: ids rewritten; null for references the replica cannot see. */
  private localValues(res: ResourceKey, row: WireRow, toLocal: Map<string, number>, missingOut?: { n: number }): WireRow | null {
    const lookup: IdLookup = (r, id) => toLocal.get(`${r}:${id}`);
    const { row: out, missing } = rewriteIds(row, lookup);
    if (missingOut) missingOut.n = missing.length;
    for (const m of missing) {
      if (REQUIRED.has(m.col) || (m.col === 'company_id' && (res === 'person' || res === 'project'))) return null;
      out[m.col] = null;
    }
    delete out.id;
    for (const k of Object.keys(out)) if (k.startsWith('_') || k === 'token') delete out[k];
    return out;
  }

  private async insertValues(w: Writer, res: ResourceKey, v: WireRow): Promise<WireRow | null> {
    const out = { ...v };
    if (res === 'comment') {
      const parentRes = Object.entries(TYPE_OF).find(([, t]) => t === v.commentable_type)?.[0] as ResourceKey | undefined;
      const parent = parentRes ? await q.localRow(w, RESOURCES[parentRes].table, Number(v.commentable_id)) : undefined;
      if (!parent) return null;
      out.project_id = parent.project_id as number;
    }
    if (res === 'todoItem') {
      const list = await q.localRow(w, 'todo_lists', Number(v.todo_list_id));
      if (!list) return null;
      out.project_id = list.project_id as number;
    }
    if (res === 'company' && out.firm === undefined) out.firm = 0;
    return out;
  }

  private async applyOne(w: Writer, ctx: Awaited<ReturnType<SyncEngine['applyContext']>>, p: Pulled, seen: Set<string>): Promise<void> {
    const { resource: res, row } = p;
    const R = RESOURCES[res];
    const key = `${res}:${row.id}`;
    if (seen.has(key)) return;
    seen.add(key);
    const why = unrepresentable(row);
    if (why) { this.refuse(`the ${res} ${String(row.id)} cannot be represented here: ${why}`); seen.delete(key); return; }
    if (ctx.parked) await q.unpark(w, res, Number(row.id));
    const missing = { n: 0 };
    const values = this.localValues(res, row, ctx.ids.toLocal, missing);
    // A feed page before the last one: a record that names one not here yet waits for it (D248).
    const park = async () => { await q.parkRow(w, res, Number(row.id), p.scope, row); ctx.parked = true; };
    if (ctx.park && (!values || missing.n > 0)) { await park(); return; }
    if (!values) { seen.delete(key); return; }
    let local = ctx.ids.toLocal.get(key);
    const cur = local !== undefined ? await q.localRow(w, R.table, local) : undefined;
    if (cur) {
      const moved = this.impossibleMove(res, values, cur as WireRow, await this.listProject(w, res, values, cur as WireRow));
      if (moved) { this.refuse(`the ${res} ${String(row.id)}: ${moved}; it stays where it was here`); return; }
    }
    if (local === undefined || !cur) {
      const pend = local !== undefined ? ctx.pending.get(`${R.table}:${local}`) : undefined;
      if (pend?.deleted) {
        // Deleted here, changed there: the local delete will win on the server; log what it drops.
        const base = await q.shadow(w, res, Number(row.id));
        const logged = editedRemotely(base, row).filter((c) => EDITED[res].has(c.field));
        const about = logged.length ? await describe(w, res, values) : null;
        for (const c of logged) await q.addConflict(w, res, local!, c, ctx.now, about);
        await q.putShadow(w, res, Number(row.id), p.scope, row);
        return;
      }
      const ins = await this.insertValues(w, res, values);
      if (!ins && ctx.park) { await park(); return; }
      if (!ins) { seen.delete(key); return; }
      if (local !== undefined) ins.id = local;
      if (res === 'person' && Number(row.id) === ctx.selfRemote) {
        ins.token = newToken();
        ins.password_hash = ctx.passwordHash;
      }
      const id = await w.insert(R.table, ins, (ins.project_id as number | undefined) ?? (res === 'project' ? null : undefined));
      if (local === undefined) {
        local = id;
        await q.mapId(w, res, id, Number(row.id));
        ctx.ids.toLocal.set(key, id);
        ctx.ids.toRemote.set(`${res}:${id}`, Number(row.id));
      }
    } else {
      const base = await q.shadow(w, res, Number(row.id));
      const baseLocal = base ? this.localValues(res, base, ctx.ids.toLocal) ?? undefined : undefined;
      const pend = ctx.pending.get(`${R.table}:${local}`);
      const edited = EDITED[res];
      const { apply, conflicts } = mergeRecord(baseLocal, values, cur as WireRow, pend?.cols ?? new Set(), (c) => edited.has(c));
      const about = conflicts.length ? await describe(w, res, cur as WireRow) : null;
      for (const c of conflicts) await q.addConflict(w, res, local, c, ctx.now, about);
      if (Object.keys(apply).length) await w.update(R.table, local, apply, res === 'project' ? local : (cur.project_id as number | undefined));
    }
    let scope = p.scope;
    if (/^p(NaN|null)\//.test(scope)) {
      // Read before its list or parent (a feed page before theirs): its project is known now.
      const lp = (await q.localRow(w, R.table, local))?.project_id;
      scope = scopeOf(res, row, ctx.ids.toRemote.get(`project:${String(lp)}`) ?? null);
    }
    await q.putShadow(w, res, Number(row.id), scope, row);
  }

  /** The project of the list a todo item's pulled values name, when it names another list than its own. */
  private async listProject(w: Writer, res: ResourceKey, values: WireRow, cur: WireRow): Promise<number | null> {
    if (res !== 'todoItem' || values.todo_list_id === undefined || values.todo_list_id === cur.todo_list_id) return null;
    const list = await q.localRow(w, 'todo_lists', Number(values.todo_list_id));
    return list ? Number(list.project_id) : null;
  }

  /**
   * A change the interface cannot produce (D252): a record moved to another project (its project, or
   * a todo item's list in another project), or a comment moved to another parent. Refused alone.
   */
  private impossibleMove(res: ResourceKey, values: WireRow, cur: WireRow, listProject: number | null): string | null {
    if (res === 'project') return null;
    if (values.project_id !== undefined && values.project_id !== null && cur.project_id !== undefined && Number(values.project_id) !== Number(cur.project_id)) {
      return 'the remote moved it into another project, which the interface cannot do';
    }
    if (listProject !== null && Number(listProject) !== Number(cur.project_id)) return 'the remote moved it into a list of another project, which the interface cannot do';
    if (res === 'comment' && ((values.commentable_id !== undefined && Number(values.commentable_id) !== Number(cur.commentable_id))
      || (values.commentable_type !== undefined && values.commentable_type !== cur.commentable_type))) {
      return 'the remote moved it to another record, which the interface cannot do';
    }
    return null;
  }

  /**
   * Remove a local record and what it holds (the remote deleted it or refused its create). Pending
   * local edits of it, and records created offline under it, go to the conflict log with their values.
   */
  private async removeLocal(w: Writer, ctx: Awaited<ReturnType<SyncEngine['applyContext']>>, res: ResourceKey, id: number, why: 'remote' | 'rejected'): Promise<void> {
    // A remote deletion: what is removed is kept, so that "Restore with my changes" can bring it back (D311).
    const tree = why === 'remote' && res !== 'project' ? newRestoreTree(res, id, ctx.now) : undefined;
    // What goes with it, as the registry says (deleteRecord, D321); `at`: the row's place in the tree.
    const removed = await deleteRecord<number>(w, res, id, {
      enter: (r, rid, row, parent) => (tree ? tree.rows.push({ res: r, id: rid, row: row as WireRow, parent: parent ?? -1, keep: false }) - 1 : -1),
      leave: async (r, rid, row, at) => {
        const R = RESOURCES[r];
        const pend = ctx.pending.get(`${R.table}:${rid}`);
        const remoteId = ctx.ids.toRemote.get(`${r}:${rid}`);
        let logged: Conflict[] = [];
        if (pend?.created && remoteId === undefined) logged = [orphaned(row as WireRow)];
        else if (pend && pend.cols.size && why === 'remote') logged = deletedRemotely(row as WireRow, new Set([...pend.cols].filter((c) => EDITED[r].has(c))));
        const about = logged.length ? { ...await describe(w, r, row as WireRow), group: tree?.group } : null;
        for (const c of logged) await q.addConflict(w, r, rid, c, ctx.now, about);
        if (tree && logged.length) keepInTree(tree, at ?? -1);
        if (pend) await this.dropFromOutbox(w, R.table, rid);
        if (remoteId !== undefined) {
          await q.dropShadow(w, r, remoteId);
          await q.unmapLocal(w, r, rid);
          ctx.ids.toRemote.delete(`${r}:${rid}`);
          ctx.ids.toLocal.delete(`${r}:${remoteId}`);
        }
      },
    });
    if (removed && tree) await saveRestoreTree(w, tree);
  }

  private async dropFromOutbox(w: Writer, table: string, id: number): Promise<void> {
    for (const e of await q.outbox(w)) {
      const keep = e.changes.filter((c) => !(c.t === table && c.id === id));
      if (keep.length !== e.changes.length) await q.rewriteOutbox(w, e.seq, keep);
    }
  }

  // ---- push -------------------------------------------------------------------------------------

  private async loadView(changes: readonly RowChange[]): Promise<LocalView> {
    const rows = new Map<string, WireRow | undefined>();
    const orders = new Map<string, number[]>();
    for (const c of changes) {
      const res = resourceOfTable(c.t);
      if (c.op !== 'update' || !(res === 'todoItem' || res === 'todoList') || !c.v || !('position' in c.v || 'todo_list_id' in c.v)) continue;
      const row = await q.localRow(this.store, c.t, c.id) as WireRow | undefined;
      rows.set(`${c.t}:${c.id}`, row);
      if (!row) continue;
      const parent = Number(res === 'todoItem' ? row.todo_list_id : row.project_id);
      orders.set(`${res}:${parent}`, (await q.childOrder(this.store, res, parent)).map((r) => Number(r.id)));
    }
    return {
      row: (t, id) => rows.get(`${t}:${id}`),
      order: (r, parent) => orders.get(`${r}:${parent}`) ?? [],
    };
  }

  /**
   * Replay the outbox; true when anything was sent. Independent entries run concurrently (at most
   * `pushConcurrency`, D105): shared/sync/schedule.ts says which must wait (per record, parents
   * before children, barriers). Each wave's outcomes are recorded in ONE local transaction.
   * `inDoubtOnly`: settle, one by one, only the entries whose answer was lost.
   * Against a team server that advertises `batch` (D285), a wave is up to a batch's worth of entries:
   * those with one step left go up in batches (push-batch.ts), the others as before; in-doubt ones too
   * (their keys replay). Entries of a wave never depend on each other (schedule.ts), so a batch never
   * needs the id of a record created in the same batch: the dependent entry waits for the next wave.
   */
  private async push(remote: Remote, idempotency: boolean, inDoubtOnly = false): Promise<boolean> {
    const load = async () => {
      const all = await q.outbox(this.store);
      return inDoubtOnly ? all.filter((e) => e.inDoubt) : all;
    };
    let entries = await load();
    if (!entries.length) return false;
    const total = entries.length;
    const ids = await q.idMap(this.store);
    const st = await q.state(this.store);
    const client = st.get('client') ?? 'c';
    const selfRemote = Number(st.get('self_remote'));
    const toRemote: IdLookup = (r, id) => ids.toRemote.get(`${r}:${id}`);
    const concurrency = Math.max(1, this.o.pushConcurrency ?? 8);
    const batchCaps = () => (idempotency ? remote.batch : null);
    let deps = dependencies(entries);
    let bySeq = new Map(entries.map((e) => [e.seq, e]));
    const finished = new Set<number>();
    let done = 0;
    this.report('push', done, total);
    while (finished.size < bySeq.size) {
      const caps = batchCaps();
      const wave = caps
        // Batched (D285): candidates in outbox order; those whose dependencies finished or precede them in the batch.
        ? entries.filter((e) => !finished.has(e.seq))
        : ready(entries.map((e) => e.seq), deps, finished, new Set(), inDoubtOnly ? 1 : concurrency).map((s) => bySeq.get(s)!);
      // Plan first: an action on a record the remote does not know is rejected before anything is sent.
      let planned: { entry: q.OutboxEntry; steps: Step[] }[] = [];
      const batch: { entry: q.OutboxEntry; steps: Step[] }[] = [];
      const inBatch = new Set<number>();
      let bytes = 0;
      let reloaded = false;
      for (const entry of wave) {
        const d = deps.get(entry.seq) ?? [];
        const settled = d.every((s) => finished.has(s));
        if (caps) {
          if (batch.length >= caps.max) break;
          // Waiting for an entry not sent yet (or sent alone in this wave): the next wave.
          if (!d.every((s) => finished.has(s) || inBatch.has(s))) continue;
        }
        let steps: Step[];
        try {
          steps = planAction(entry.changes, await this.loadView(entry.changes), toRemote);
        } catch (e) {
          if (!(e instanceof Unmapped)) throw e;
          // It needs the remote id of a record created earlier in this batch: the batch is split there.
          if (!settled) continue;
          await this.reject(entry, { resource: e.resource, localId: e.id, method: '-', path: '-' }, 404, e.message, ids);
          finished.add(entry.seq);
          done++;
          reloaded = true;
          break; // a rejection may change other entries: plan again from the store
        }
        if (!caps) { planned.push({ entry, steps }); continue; }
        const left = steps.length - entry.doneSteps;
        const size = left === 1 ? mutationBytes(toMutation(client, entry.seq, entry.doneSteps, steps[entry.doneSteps])) : Infinity;
        if (left === 1 && bytes + size <= caps.bytes - 64) {
          batch.push({ entry, steps });
          inBatch.add(entry.seq);
          bytes += size;
        } else if (settled && planned.length < (inDoubtOnly ? 1 : concurrency)) planned.push({ entry, steps }); // alone, as before
      }
      if (reloaded) {
        entries = (await load()).filter((e) => !finished.has(e.seq));
        deps = dependencies(entries);
        bySeq = new Map(entries.map((e) => [e.seq, e]));
        finished.clear();
        continue;
      }
      // The batch runs in order and stops at its first failure, so the order the dependencies ask for holds.
      const sends = new Map<number, () => Promise<RemoteResponse>>();
      if (batch.length) {
        const sent = sendBatch(remote, client, batch.map((p) => toMutation(client, p.entry.seq, p.entry.doneSteps, p.steps[p.entry.doneSteps])));
        sent.catch(() => undefined); // each entry reads the failure through answerOf
        batch.forEach((p, j) => sends.set(p.entry.seq, () => answerOf(sent, j)));
        planned = [...batch, ...planned];
      }
      // Each may commit and its answer be lost: settled before the next pull (Idempotency-Key, or by looking).
      await this.store.write(async (w) => {
        w.outbox?.mute();
        for (const p of planned) if (p.steps.length > p.entry.doneSteps) await q.markInDoubt(w, p.entry.seq);
      });
      const results = await Promise.allSettled(planned.map((p) => this.pushEntry(remote, idempotency, client, selfRemote, p.entry, p.steps, ids, sends.get(p.entry.seq))));
      // Record the wave's outcomes in one transaction: new id mappings and finished entries.
      const ok: { seq: number; map: Step & { remoteId: number } | null }[] = [];
      results.forEach((r, k) => { if (r.status === 'fulfilled' && r.value.kind === 'ok') ok.push({ seq: planned[k].entry.seq, map: r.value.map }); });
      if (ok.length) {
        await this.store.write(async (w) => {
          w.outbox?.mute();
          for (const o of ok) {
            if (o.map) await q.mapId(w, o.map.resource, o.map.localId, o.map.remoteId);
            await q.outboxDone(w, o.seq);
          }
        });
      }
      for (const o of ok) finished.add(o.seq);
      done += ok.length;
      let rejected = false;
      let failure: unknown = null;
      for (let k = 0; k < results.length; k++) {
        const r = results[k];
        if (r.status === 'rejected') { if (!(r.reason instanceof Skipped)) failure ??= r.reason; continue; } // Skipped: not run, sent again
        if (r.value.kind !== 'rejected') continue;
        await this.reject(planned[k].entry, r.value.step, r.value.status, r.value.message, ids);
        finished.add(planned[k].entry.seq);
        done++;
        rejected = true;
      }
      this.report('push', done, total);
      if (failure) throw failure;
      if (rejected) {
        entries = (await load()).filter((e) => !finished.has(e.seq));
        deps = dependencies(entries);
        bySeq = new Map(entries.map((e) => [e.seq, e]));
        finished.clear();
      }
    }
    return true;
  }

  /**
   * Send one entry's steps in order. Steps before the last are recorded as they complete (a crash
   * between them must not replay a committed create); the last one's outcome is returned and
   * recorded with the rest of its wave. The in-memory id map is updated at once.
   * `send`: the first step's answer comes from a batch (push-batch.ts; Skipped when it did not run).
   */
  private async pushEntry(remote: Remote, idempotency: boolean, client: string, selfRemote: number, entry: q.OutboxEntry, steps: Step[],
    ids: { toRemote: Map<string, number>; toLocal: Map<string, number> }, send?: () => Promise<RemoteResponse>):
    Promise<{ kind: 'ok'; map: (Step & { remoteId: number }) | null } | { kind: 'rejected'; step: Step; status: number; message: string }> {
    let map: (Step & { remoteId: number }) | null = null;
    const remember = async (k: number, step: Step, rid: number) => {
      if (k + 1 < steps.length) { await this.created(entry.seq, k, step, rid, ids); return; }
      if (!ids.toRemote.has(`${step.resource}:${step.localId}`)) {
        ids.toRemote.set(`${step.resource}:${step.localId}`, rid);
        ids.toLocal.set(`${step.resource}:${rid}`, step.localId);
        map = { ...step, remoteId: rid };
      }
    };
    for (let k = entry.doneSteps; k < steps.length; k++) {
      const step = steps[k];
      const inDoubt = entry.inDoubt && k === entry.doneSteps;
      if (inDoubt && step.kind === 'create' && step.find && !idempotency) {
        const found = await this.findEarlier(remote, step, ids.toLocal, selfRemote);
        if (found !== undefined) {
          await remember(k, step, found);
          continue;
        }
      }
      if (k > entry.doneSteps) await q.markInDoubt(this.store, entry.seq); // the first was marked with its wave
      const headers: Record<string, string> = idempotency ? { 'Idempotency-Key': `${client}-${entry.seq}-${k}` } : {};
      let status: number | null = null;
      let body = '';
      let res: Awaited<ReturnType<Remote['request']>> | null = null;
      let netMessage = '';
      try {
        res = send && k === entry.doneSteps ? await send() : await remote.request(step.method, step.path, step.body, headers);
        status = res.status;
        body = res.body;
      } catch (e) {
        if (!(e instanceof RemoteUnreachable)) throw e;
        netMessage = e.message;
      }
      // A delete repeated after a lost answer finds nothing: it is done.
      if (status === 404 && step.kind === 'delete' && inDoubt) status = 200;
      const outcome = classify(status, res?.headers.get('retry-after'), entry.attempts, remoteNow(res?.headers) ?? Date.now(), status === null ? netMessage : status >= 200 && status < 300 ? '' : errorMessage(status, body)); // no parse of a success
      if (outcome.kind === 'retry') {
        throw new Backoff(outcome.reason, status === null, status === 429 || status === 503 || status === 409
          ? retryAfterMs(res?.headers.get('retry-after'), remoteNow(res?.headers), Date.now()) : null);
      }
      if (outcome.kind === 'rejected') {
        const message = step.kind === 'create' && step.resource === 'project' && (outcome.status === 404 || outcome.status === 405)
          ? `The remote cannot create projects (${outcome.status}: ${outcome.message}): a plain server has no project-create route. The project and what it held were removed here and are kept in the conflict log; create the project on the remote, then add the work there`
          : outcome.message;
        return { kind: 'rejected', step, status: outcome.status, message };
      }
      if (step.kind === 'create') {
        const m = /(\d+)(?:\.xml)?$/.exec(res!.headers.get('location') ?? '');
        let rid = m ? Number(m[1]) : NaN;
        if (!Number.isFinite(rid)) {
          const first = decodeCollection(RESOURCES[step.resource], parseXml(body))[0];
          rid = Number(first?.id);
        }
        // An id this replica cannot hold would stop every later sync (D251): the create is refused alone.
        if (!Number.isSafeInteger(rid) || rid <= 0) return { kind: 'rejected', step, status: status!, message: `The remote answered the create with an id that cannot be represented here (${res!.headers.get('location') ?? 'no Location'})` };
        await remember(k, step, rid);
      } else if (k + 1 < steps.length) await q.stepDone(this.store, entry.seq, k + 1); // the last one: the entry goes with its wave
    }
    return { kind: 'ok', map };
  }

  private async created(seq: number, k: number, step: Step, remoteId: number, ids: { toRemote: Map<string, number>; toLocal: Map<string, number> }): Promise<void> {
    await this.store.write(async (w) => {
      w.outbox?.mute();
      if (!ids.toRemote.has(`${step.resource}:${step.localId}`)) {
        await q.mapId(w, step.resource, step.localId, remoteId);
        ids.toRemote.set(`${step.resource}:${step.localId}`, remoteId);
        ids.toLocal.set(`${step.resource}:${remoteId}`, step.localId);
      }
      await q.stepDone(w, seq, k + 1);
    });
  }

  /** A plain server has no idempotency keys: did an earlier attempt of this create succeed? */
  private async findEarlier(remote: Remote, step: Step, toLocal: Map<string, number>, selfRemote: number): Promise<number | undefined> {
    const find = step.find!;
    const rows: WireRow[] = [];
    for (let page = 1; page <= 50; page++) {
      const sep = find.path.includes('?') ? '&' : '?';
      const { root, headers } = await remote.getXml(step.resource === 'timeEntry' ? `${find.path}${sep}page=${page}` : find.path);
      rows.push(...decodeCollection(RESOURCES[step.resource], root));
      if (step.resource !== 'timeEntry' || page >= Number(headers.get('x-pages') ?? 1)) break;
    }
    const mine = rows.filter((r) => !toLocal.has(`${step.resource}:${r.id}`) && matchesCreate(find, r)
      && (r.author_id === undefined || r.author_id === selfRemote) && (r.creator_id === undefined || r.creator_id === selfRemote));
    if (!mine.length) return undefined;
    return Math.max(...mine.map((r) => Number(r.id)));
  }

  /**
   * The remote refused an action (403/404/422…): it moves to the rejected list with the server's
   * message, and the records it touched return to the remote's state (shadow copies).
   */
  private async reject(entry: q.OutboxEntry, step: Pick<Step, 'resource' | 'localId' | 'path'> & { method: string }, status: number, message: string, ids: { toRemote: Map<string, number>; toLocal: Map<string, number> }): Promise<void> {
    await this.store.write(async (w) => {
      w.outbox?.mute();
      const ctx = await this.applyContext(w);
      await q.addRejected(w, entry.seq, step.resource, step.localId, step.method, step.path, status, message, w.now);
      await q.outboxDone(w, entry.seq);
      // The rejected entry no longer counts as pending for the restore.
      const mine = new Map<string, Pending>();
      addPending(mine, entry.changes);
      const records = [...mine.entries()].map(([k, p]) => ({ t: k.split(':')[0], id: Number(k.split(':')[1]), p }))
        .filter((r) => resourceOfTable(r.t))
        .sort((a, b) => HIERARCHY.indexOf(resourceOfTable(a.t)!) - HIERARCHY.indexOf(resourceOfTable(b.t)!));
      for (const r of records) {
        const res = resourceOfTable(r.t)!;
        const remoteId = ctx.ids.toRemote.get(`${res}:${r.id}`);
        if (remoteId === undefined) {
          if (r.p.created) {
            ctx.pending.set(`${r.t}:${r.id}`, { cols: new Set(), created: true, deleted: false });
            await this.removeLocal(w, ctx, res, r.id, 'rejected');
          }
          continue;
        }
        const base = await q.shadow(w, res, remoteId);
        if (!base) continue;
        const v = this.localValues(res, base, ctx.ids.toLocal);
        if (!v) continue;
        const cur = await q.localRow(w, r.t, r.id);
        if (cur) {
          const back: WireRow = {};
          for (const col of dataKeys(v)) if (r.p.cols.has(col) || r.p.deleted) back[col] = v[col];
          if (r.p.cols.has('completed')) for (const col of ['completed_at', 'completer_id']) back[col] = v[col] ?? null;
          if (Object.keys(back).length) await w.update(r.t, r.id, back, (cur.project_id as number | undefined) ?? undefined);
        } else {
          const ins = await this.insertValues(w, res, v);
          if (!ins) continue;
          ins.id = r.id;
          await w.insert(r.t, ins, (ins.project_id as number | undefined) ?? undefined);
          // Its comments were removed with it here: read them again on the next scan.
          await q.putShadow(w, res, remoteId, (await q.shadows(w)).get(`${res}:${remoteId}`)?.scope ?? '', { ...base, _comments_count: -1 });
        }
      }
      ids.toRemote.clear();
      ids.toLocal.clear();
      for (const [k, x] of ctx.ids.toRemote) ids.toRemote.set(k, x);
      for (const [k, x] of ctx.ids.toLocal) ids.toLocal.set(k, x);
    });
  }

  conflicts(): Promise<ConflictView[]> { return listConflicts(this.store); }
  resolve(id: number, keep: ConflictAction): Promise<ConflictView> { return resolveConflict(this.store, id, keep); }
  rejected(): Promise<RejectedView[]> { return listRejected(this.store); }
  ownerId(): Promise<number | null> { return ownerId(this.store); }

}

// ---- conflicts (electron/sync/conflicts.ts) ---------------------------------------------------

export { listConflicts, resolveConflict } from './conflicts.ts';

export async function listRejected(store: Store): Promise<RejectedView[]> {
  return (await q.rejected(store)).map((r) => ({
    id: Number(r.id), seq: Number(r.seq), resource: r.resource as ResourceKey, recordId: Number(r.record_id), method: String(r.method),
    path: String(r.path), status: Number(r.status), message: String(r.message), at: String(r.at),
  }));
}
