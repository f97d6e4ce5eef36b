// The connect phase (D317): a remote URL and credentials become a link, or a refusal that changes nothing.
// Input: the store, the credentials, the token vault; output: the linked remote and what to put back if
// the first sync is refused (D256), or a SyncError. Also the adoption of local work (D150), the refusal
// of a shared server (D254), the unlink of a disconnect (D151) and the token kept for the remote.

import { randomBytes } from 'node:crypto';
import { column, RESOURCES, writableFields, type ResourceKey } from '../../shared/registry.ts';
import { refResource } from '../../shared/sync/ids.ts';
import { blockedTime, matchAccount, matchCategories, type Matching } from '../../shared/sync/adopt.ts';
import type { WireRow } from '../../shared/sync/wire.ts';
import * as q from '../store/queries/replica.ts';
import { lastChangeSeq } from '../store/queries/changes.ts';
import * as life from '../store/queries/lifecycle.ts';
import { ownerCredentials } from '../store/queries/people.ts';
import type { Store, Writer } from '../store/types.ts';
import { hashPassword, newToken } from '../service/auth.ts';
import { SyncError } from '../service/sync.ts';
import { status as setupStatus } from '../service/setup.ts';
import { ownerId } from './owner.ts';
import { RemoteError, RemoteUnreachable, type Remote, type RemoteAuth } from './remote.ts';
import { retryAfterMs } from './backoff.ts';
import type { TokenVault } from './token-vault.ts';

/** The remote's API token: kept in the vault (a 0600 file, or the shell's secrets) and in memory. */
export class Tokens {
  private mem: string | null = null;
  private readonly vault: TokenVault;
  constructor(vault: TokenVault) { this.vault = vault; }
  async write(token: string): Promise<void> {
    this.mem = token;
    await this.vault.write(token);
  }
  async read(): Promise<string | null> {
    if (this.mem) return this.mem;
    return this.vault.read();
  }
  /** Put the token back as it was (null: none). */
  async put(token: string | null): Promise<void> {
    if (token) await this.write(token);
    else {
      await this.vault.remove();
      this.mem = null;
    }
  }
}

/** What a connect asks of the remote (its checks; the adoption's lists). */
export type ConnectRemote = Pick<Remote, 'url' | 'me' | 'capabilities' | 'list'>;

/** What a connect is given. */
export interface ConnectEnv<R extends ConnectRemote = Remote> {
  readonly store: Store;
  /** Why this server serves a network, or null (EngineOptions.network, D254). */
  readonly network?: string | null;
  readonly tokens: Tokens;
  /** A remote adapter for this URL and these credentials. */
  readonly remoteFor: (url: string, auth: RemoteAuth) => R;
  /** Aborted when the engine stops: a connect waiting on the remote gives up. */
  readonly signal: AbortSignal;
}

/** What to put back if the first sync is refused (D256): data or link, token, the engine's remote and kind. */
export interface Before<R = Remote> {
  readonly snap: life.Snapshot | null;
  readonly state: q.SyncState;
  readonly token: string | null;
  readonly remote: R | null;
  readonly recordOutbox: boolean | undefined;
  readonly kind: 'team' | 'plain' | null;
}

/** A link written: the remote to sync with, what to put back, and the outbox and rejected count as linked. */
export interface Linked<R = Remote> {
  readonly remote: R;
  readonly before: Before<R>;
  readonly outbox: q.OutboxEntry[];
  readonly rejected: number;
}

/** Local work checked for pushing on connect (D150). */
export interface Adoption { m: Matching; categories: Map<number, number>; seq: number; meUserName: string | null }

/** `p`, or a transient SyncError as soon as `signal` aborts (the engine stopped). */
export function untilStopped<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stopped = () => reject(new SyncError(503, 'The service stopped before the remote answered', { transient: true }));
    if (signal.aborted) { stopped(); return; }
    signal.addEventListener('abort', stopped, { once: true });
    p.then((v) => { signal.removeEventListener('abort', stopped); resolve(v); }, (e: unknown) => { signal.removeEventListener('abort', stopped); reject(e as Error); });
  });
}

/**
 * Connect to a remote: check the credentials at once (nothing changes when they fail), keep the
 * remote API token (never the password), then write the link (and adopt the local work) in one
 * transaction. A server used by more than one person is refused before the remote is contacted
 * (D254). The first sync is the engine's; `firstSyncRefused` says whether to put everything back.
 */
export async function link<R extends ConnectRemote>(env: ConnectEnv<R>, url: string, auth: RemoteAuth, caller: number | null, current: () => Pick<Before<R>, 'remote' | 'kind'>): Promise<Linked<R>> {
  await refuseShared(env, caller);
  let u: URL;
  try {
    u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new SyncError(422, `Remote URL is invalid: ${url}`);
  }
  const target = url.replace(/\/+$/, '');
  const st = await q.state(env.store);
  // Linked to another remote: refused at once, without asking the new one anything.
  if (st.get('url') && st.get('url') !== target) {
    throw new SyncError(409, `This data directory is a replica of ${st.get('url')}: disconnect it first or use an empty data directory; nothing was changed`);
  }
  const probe = env.remoteFor(url, auth);
  const halt = env.signal;
  let me: Awaited<ReturnType<Remote['me']>>;
  try {
    me = await untilStopped(probe.me(), halt);
  } catch (e) {
    if (e instanceof SyncError) throw e;
    if (e instanceof RemoteUnreachable) throw new SyncError(502, `Remote is unreachable: ${e.message}`, { transient: true });
    if (e instanceof RemoteError && e.status === 401) throw new SyncError(422, 'The remote refused these credentials (401)');
    if (e instanceof RemoteError && (e.status >= 500 || e.status === 429)) {
      throw new SyncError(502, `The remote could not answer (${e.message})`, { transient: true, retryAfterMs: retryAfterMs(e.retryAfter, e.remoteNow, Date.now()) });
    }
    if (e instanceof RemoteError) throw new SyncError(422, `Not a Bivouac/Basecamp API at ${url}: ${e.message}`);
    throw e;
  }
  const token = 'token' in auth ? auth.token : me.token;
  if (!token) throw new SyncError(422, 'The remote does not show this person\'s API token on /me.xml: connect with a token instead');
  const selfRemote = Number(me.id);
  // What this directory is to this remote (D150): checked in full before anything changes.
  let adopt: Adoption | null = null;
  if (st.get('url')) {
    if (Number(st.get('self_remote')) !== selfRemote) {
      throw new SyncError(409, `This data directory is a replica of ${st.get('url')} (another account or person): disconnect it first or use an empty data directory`);
    }
  } else if (st.get('was_url') === probe.url) {
    // A disconnected replica: the same person resumes (its pending work is pushed by the sync below).
    if (Number(st.get('was_self')) !== selfRemote) {
      throw new SyncError(409, `This data directory was a replica of ${probe.url} as ${st.get('was_user') || 'another person'}: its records are that person's copy of this remote, and pushing them as someone else would duplicate them. Connect as ${st.get('was_user') || 'that person'}, or use an empty data directory; nothing was changed`);
    }
  } else if (!(await env.store.isEmpty())) {
    if ((await setupStatus(env.store)).demo) {
      throw new SyncError(409, 'This data directory holds the demo account, whose sample data is not pushed to a remote: connect an empty data directory (bivouac serve --data-dir NEW --remote …); nothing was changed');
    }
    adopt = await untilStopped(planAdoption(env.store, probe, me, caller), halt);
  }
  // What to put back if the first sync is refused (D256): everything, when the directory is new to this
  // remote (empty, or local work being adopted); else the link alone (the data is this person's copy of it).
  const before = {
    snap: !st.get('url') && st.get('was_url') !== probe.url ? await life.snapshot(env.store) : null,
    state: st, token: await env.tokens.read(), recordOutbox: env.store.recordOutbox, ...current(),
  };
  const pwHash = 'password' in auth ? await hashPassword(auth.password) : null;
  await env.tokens.write(token);
  try {
    await env.store.write(async (w) => {
      w.outbox?.mute();
      if (adopt) await adoptLocal(w, adopt, pwHash);
      // What the remote takes is read again by the first sync (D338): until then its administration is refused.
      for (const k of ['was_url', 'was_self', 'was_user', 'remote_kind'] as const) await q.setState(w, k, null);
      await q.setState(w, 'url', probe.url);
      await q.setState(w, 'user', 'user' in auth ? auth.user : String(me.user_name ?? ''));
      await q.setState(w, 'self_remote', String(selfRemote));
      if (!st.get('client') || adopt) await q.setState(w, 'client', randomBytes(8).toString('hex'));
      if (pwHash) await q.setState(w, 'password_hash', pwHash);
    });
  } catch (e) {
    await env.tokens.put(before.token); // nothing was linked: the token as it was
    throw e;
  }
  return { remote: env.remoteFor(probe.url, { token }), before, outbox: await q.outbox(env.store), rejected: (await q.counts(env.store)).rejected };
}

/**
 * Refuse to make a replica of a server used by more than one person (D254), before anything else
 * (the remote URL is not requested): a server that serves a network, one on PostgreSQL, or an
 * account where someone other than the asking person (or the owner) has signed in.
 */
export async function refuseShared(env: Pick<ConnectEnv<ConnectRemote>, 'store' | 'network'>, caller: number | null): Promise<void> {
  const why = env.network ?? (env.store.dialect === 'postgres' ? 'it keeps its data in PostgreSQL (--store)' : null);
  const refuse = (reason: string) => new SyncError(409, `This server is used by more than one person (${reason}): only the local service of one person's desktop app can become a replica of a remote. A team server stays a team server; nothing was changed and the remote was not contacted`);
  if (why) throw refuse(why);
  const me = caller !== null ? await life.userNameOf(env.store, caller)
    : (await ownerId(env.store)) !== null ? await life.userNameOf(env.store, (await ownerId(env.store))!) : (await ownerCredentials(env.store))?.user_name ?? null;
  const others = (await life.signedInUserNames(env.store)).filter((n) => n !== me);
  if (others.length) throw refuse(`${others.length === 1 ? 'another person has' : `${others.length} other people have`} signed in to it`);
}

/**
 * Check that this directory's local work can all be pushed to the remote (D150), reading only;
 * a SyncError (409) lists everything that blocks it.
 */
export async function planAdoption(store: Store, remote: Pick<Remote, 'url' | 'capabilities' | 'list'>, me: WireRow, caller: number | null): Promise<Adoption> {
  try {
    // Any local write from here to the link is seen (the change feed's sequence) and refuses the link.
    const seq = await lastChangeSeq(store);
    const caps = await remote.capabilities();
    const companies = await remote.list('company', '/companies.xml');
    const people: WireRow[] = [];
    for (const c of companies) people.push(...await remote.list('person', `/contacts/people/${c.id}`));
    const projects = await remote.list('project', '/projects.xml');
    const local = { companies: await q.allRows(store, 'companies'), people: await q.allRows(store, 'people'), projects: await q.allRows(store, 'projects'), caller };
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
    const categories = matchCategories(await q.allRows(store, 'categories'), m.projects, cats);
    const personName = (id: number) => {
      const p = local.people.find((x) => Number(x.id) === id);
      return p ? `${String(p.first_name ?? '')} ${String(p.last_name ?? '')}`.trim() || String(p.user_name ?? id) : `person ${id}`;
    };
    const projectName = (id: number) => String(local.projects.find((x) => Number(x.id) === id)?.name ?? id);
    const blocks = [...m.blocks, ...blockedTime(await q.allRows(store, 'time_entries'), m, Number(me.id), members, personName, projectName)];
    if (blocks.length) {
      throw new SyncError(409, `This data directory holds local work that cannot be pushed to ${remote.url}, so nothing was changed: ${blocks.join('; ')}`);
    }
    return { m, categories, seq, meUserName: typeof me.user_name === 'string' && me.user_name ? me.user_name : null };
  } catch (e) {
    if (e instanceof RemoteUnreachable) throw new SyncError(502, `Remote is unreachable: ${e.message}`);
    if (e instanceof RemoteError) throw new SyncError(502, `The remote failed while the local work was checked (nothing was changed): ${e.message}`);
    throw e;
  }
}

/**
 * Link the checked local work to the remote (one transaction, with the new sync state): the
 * matched records go into the id map, everything else in the projects into the outbox as
 * creates, parents before children (lists and items in their local order); the normal push
 * sends them. References to people or companies with no match are left out (cleared remotely).
 */
export async function adoptLocal(w: Writer, a: Adoption, pwHash: string | null): Promise<void> {
  const { m } = a;
  if (await lastChangeSeq(w) !== a.seq) {
    throw new SyncError(409, 'The local data changed while it was being checked against the remote, so nothing was changed: connect again');
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

/**
 * The first sync after a link was refused (not transient): the directory goes back as it was (D256)
 * unless something already reached the remote or was written here meanwhile (then the link stands).
 */
export async function untouchedSince(store: Store, l: Pick<Linked, 'outbox' | 'rejected'>): Promise<boolean> {
  const now = await q.outbox(store);
  return now.length === l.outbox.length && now.every((x, k) => x.seq === l.outbox[k].seq && !x.inDoubt && x.doneSteps === 0)
    && (await q.counts(store)).rejected === l.rejected;
}

/** The error a refused first sync ends the connect with (the directory was put back). */
export function firstSyncRefused(e: unknown): Error {
  if (e instanceof SyncError) return e;
  return new SyncError(502, `The remote refused the first sync, so this data directory was left as it was (not connected): ${(e as Error).message}`);
}

/** Put the directory back as it was before a connect (D256): data or link, the outbox switch, the token. */
export async function restoreDirectory(store: Store, tokens: Tokens, b: Before<unknown>): Promise<void> {
  await store.write(async (w) => {
    w.outbox?.mute();
    if (b.snap) await life.restore(w, store.dialect, b.snap);
    else await life.restoreState(w, b.state);
  });
  store.recordOutbox = b.recordOutbox;
  await tokens.put(b.token);
}

/**
 * Forget the link (a disconnect, D151): the remote's URL and person move to was_*, so that the same
 * person reconnecting resumes; the outbox goes on recording while was_url is kept.
 */
export async function unlink(store: Store, tokens: Tokens): Promise<void> {
  await store.write(async (w) => {
    w.outbox?.mute();
    const st = await q.state(w);
    if (!st.get('url')) return;
    await q.setState(w, 'was_url', st.get('url')!);
    await q.setState(w, 'was_self', st.get('self_remote') ?? '');
    await q.setState(w, 'was_user', st.get('user') ?? '');
    for (const k of ['url', 'self_remote', 'user'] as const) await q.setState(w, k, null);
  });
  store.recordOutbox = (await q.state(store)).has('was_url');
  await tokens.put(null);
}

/**
 * What the remote's capabilities said at this sync (D338), kept for the services: a replica decides offline whether
 * its administration is queued for the team server (`admin`) or refused (`team` without it, `plain`). Written only
 * when it changed (a sync that changed nothing commits nothing, D307).
 */
export async function rememberRemoteKind(store: Store, kind: 'admin' | 'team' | 'plain'): Promise<void> {
  if ((await q.state(store)).get('remote_kind') === kind) return;
  await store.write(async (w) => {
    w.outbox?.mute();
    await q.setState(w, 'remote_kind', kind);
  });
}
