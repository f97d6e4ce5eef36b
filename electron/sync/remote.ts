// The remote adapter (issue #8): talks to ANY server of the interface through its public XML
// routes (Basic auth, XML only: no .json twins, no /health), and to a Bivouac team server's sync
// extension when `GET /sync/capabilities.json` says so (change feed, Idempotency-Key).
// Every request has a timeout; a network error or timeout is a RemoteUnreachable, never a hang.

import { jsonTree, parseXml, type XNode } from '../../shared/codec/in.ts';
import { RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import { decodeCollection, decodeRecord, type WireRow } from '../../shared/sync/wire.ts';

export type RemoteAuth = { readonly user: string; readonly password: string } | { readonly token: string };

export interface RemoteOptions {
  readonly url: string;
  readonly auth: RemoteAuth;
  /** Per request (default 15 s). */
  readonly timeoutMs?: number;
  /** Bytes read of one answer at most (default 64 MiB): above it the connection is aborted, a RemoteTooLarge. */
  readonly maxAnswerBytes?: number;
}

export const DEFAULT_MAX_ANSWER_MB = 64;

/**
 * Bytes of one change feed page read at most (or the answer cap if lower), D278: a page is held whole
 * (its text, then its parsed changes), and a remote can make any page that large. Above it the same
 * cursor is asked again with a tenth of the limit (1000, 100, 10, 1); only a page of one change above
 * it is an error. A change of a Bivouac server holds one record (a body of at most 1 MB).
 */
export const FEED_PAGE_MAX_BYTES = 16 * 1024 * 1024;

export interface RemoteResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** The team server's batch of writes (docs/sync-protocol.md §5): mutations and bytes per request at most. */
export interface BatchCaps { readonly max: number; readonly bytes: number }

export interface Capabilities {
  readonly feed: boolean; readonly idempotency: boolean; readonly batch?: BatchCaps | null;
  /** Conflict notices (docs/sync-protocol.md §6, D328): the other side of a conflict is told. */
  readonly notices?: boolean;
  /** Compatible additions to the protocol (absent: 1). */
  readonly version?: number;
  /** The administration routes take a replica's queued changes (D338): people, companies, members. */
  readonly admin?: boolean;
}

/** `batch` of a capabilities document, or null (absent, or limits that are not positive integers). */
function batchCaps(v: unknown): BatchCaps | null {
  const b = v as { max?: unknown; bytes?: unknown } | null;
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
  // Sizes a team server may advertise are bounded here too: a hostile one cannot make a batch unbounded.
  return b && typeof b === 'object' && ok(b.max) && ok(b.bytes) ? { max: Math.min(b.max, 1000), bytes: Math.min(b.bytes, 16 * 1024 * 1024) } : null;
}

/** The remote did not answer (network error, refused connection, timeout). */
export class RemoteUnreachable extends Error {}

/** The remote answered something else than expected (status and its error messages). */
export class RemoteError extends Error {
  readonly status: number;
  readonly retryAfter: string | null;
  /** The remote's clock when it answered (its `Date` header, ms), or null: a Retry-After date is read against it. */
  readonly remoteNow: number | null;
  constructor(status: number, message: string, retryAfter: string | null = null, remoteNow: number | null = null) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
    this.remoteNow = remoteNow;
  }
}

/**
 * The remote's clock at its answer (the `Date` header), else null. A Retry-After given as an HTTP date
 * is on the remote's clock: measured against ours, a remote hours ahead would stop the sync for hours.
 */
export function remoteNow(headers: Headers | null | undefined): number | null {
  const t = Date.parse(headers?.get('date') ?? '');
  return Number.isNaN(t) ? null : t;
}

/** The `<error>` texts of an error body, joined (or the status line). */
export function errorMessage(status: number, body: string): string {
  try {
    const n = parseXml(body);
    const msgs = n?.name === 'errors' ? n.children.map((c) => c.text).filter(Boolean) : [];
    if (msgs.length) return msgs.join('; ');
  } catch { /* not XML */ }
  try {
    const j = JSON.parse(body) as { errors?: string[] };
    if (Array.isArray(j.errors) && j.errors.length) return j.errors.join('; ');
  } catch { /* not JSON */ }
  return `HTTP ${status}`;
}

/** An answer larger than the cap (D249): not read, the connection aborted. */
export class RemoteTooLarge extends RemoteError {}

/** The remote redirected to another origin, or a write was redirected (D250): never followed. */
export class RemoteRedirect extends RemoteError {}

/** A change feed page that breaks the protocol so that following it could loop (D248). */
export class RemoteFeedBroken extends RemoteError {}

/** An id in an answer that is not a positive safe integer (D251): the record is refused alone. */
export const badId = (v: unknown): boolean => typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0;

/** A cursor of the feed: decimal digits, at most 16 (docs/sync-protocol.md §3.4). */
const CURSOR = /^\d{1,16}$/;
/** `b` comes after `a` (both cursors). */
export const cursorAfter = (a: string, b: string): boolean => BigInt(b) > BigInt(a);

export interface FeedChange {
  readonly seq: number;
  readonly resource: ResourceKey;
  readonly id: number;
  readonly op: 'upsert' | 'delete' | 'resync';
  readonly record?: WireRow;
}

export class Remote {
  readonly url: string;
  private readonly authHeader: string;
  private readonly timeoutMs: number;
  private readonly maxAnswerBytes: number;
  private readonly origin: string;
  /** Requests sent (the bench and tests count them). */
  requests = 0;
  /**
   * The batch of writes, as the last `capabilities()` read it (null: a plain server, or a batch the
   * push gave up on for this connection because its answer was not one, electron/sync/push-batch.ts).
   */
  batch: BatchCaps | null = null;
  /** Why the push stopped using batches on this connection (for the log and tests), or null. */
  batchOff: string | null = null;

  constructor(o: RemoteOptions) {
    this.url = o.url.replace(/\/+$/, '');
    const [u, p] = 'token' in o.auth ? [o.auth.token, 'X'] : [o.auth.user, o.auth.password];
    this.authHeader = `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    this.timeoutMs = o.timeoutMs ?? 15_000;
    this.maxAnswerBytes = o.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_MB * 1024 * 1024;
    this.origin = new URL(this.url).origin;
  }

  /**
   * One request. Redirects are not followed by fetch (D250): a GET may follow one to the same origin
   * (at most 5), anything else is a RemoteRedirect (never an answer of the remote's, never a 404 that
   * deletes). The answer is read as a stream and aborted above `maxAnswerBytes` (D249).
   */
  async request(method: string, path: string, body: string | null = null, headers: Record<string, string> = {}, maxBytes = this.maxAnswerBytes): Promise<RemoteResponse> {
    let url = this.url + path;
    for (let hop = 0; ; hop++) {
      this.requests++;
      const abort = new AbortController();
      const signal = AbortSignal.any([abort.signal, AbortSignal.timeout(this.timeoutMs)]);
      let res: Response;
      try {
        res = await fetch(url, {
          method, redirect: 'manual', signal,
          headers: { authorization: this.authHeader, ...(body !== null ? { 'content-type': 'application/xml' } : {}), ...headers },
          body: body ?? undefined,
        });
      } catch (e) {
        throw this.unreachable(e);
      }
      if (res.status >= 300 && res.status < 400) {
        abort.abort();
        const where = res.headers.get('location');
        let to: URL | null = null;
        try { to = where ? new URL(where, url) : null; } catch { to = null; }
        if (to && to.origin === this.origin && (method === 'GET' || method === 'HEAD') && hop < 5) { url = to.href; continue; }
        throw new RemoteRedirect(res.status, `${method} ${path}: the remote answered ${res.status} (a redirect${to ? ` to ${to.origin === this.origin ? to.pathname : to.origin}` : ''}), which is not followed${to && to.origin !== this.origin ? ': another origin is not the remote (connect to that URL if it is the right one)' : ''}`);
      }
      return { status: res.status, headers: res.headers, body: await this.readCapped(res, abort, method, path, maxBytes) };
    }
  }

  private unreachable(e: unknown): RemoteUnreachable {
    const err = e as Error & { cause?: { code?: string } };
    return new RemoteUnreachable(`${this.url} is unreachable: ${err.name === 'TimeoutError' ? 'timed out' : err.cause?.code ?? err.message}`);
  }

  /** The body, read while counting: above the cap the connection is aborted and nothing is kept. */
  private async readCapped(res: Response, abort: AbortController, method: string, path: string, max: number): Promise<string> {
    const tooLarge = () => {
      abort.abort();
      return new RemoteTooLarge(res.status, `${method} ${path}: the remote's answer is larger than ${Math.round(max / 1024 / 1024 * 10) / 10} MB (--sync-max-answer-mb): not read, the connection was closed`);
    };
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > max) throw tooLarge();
    if (!res.body) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > max) {
          chunks.length = 0;
          void reader.cancel().catch(() => undefined);
          throw tooLarge();
        }
        chunks.push(value);
      }
    } catch (e) {
      if (e instanceof RemoteTooLarge) throw e;
      throw this.unreachable(e);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  /**
   * Open a long-lived GET (the team server's change stream, electron/sync/live.ts): the answer's
   * status, headers and body stream, unread. Redirects are not followed (D250); no timeout beyond
   * `signal` (the caller bounds the time between bytes itself).
   */
  async openStream(path: string, signal: AbortSignal): Promise<Response> {
    this.requests++;
    let res: Response;
    try {
      res = await fetch(this.url + path, { method: 'GET', redirect: 'manual', signal, headers: { authorization: this.authHeader, accept: 'text/event-stream' } });
    } catch (e) {
      throw this.unreachable(e);
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      throw new RemoteRedirect(res.status, `GET ${path}: the remote answered ${res.status} (a redirect), which is not followed`);
    }
    return res;
  }

  /** GET a document; RemoteError unless 200. */
  async getXml(path: string): Promise<{ root: XNode | null; headers: Headers }> {
    const r = await this.request('GET', path);
    if (r.status !== 200) throw new RemoteError(r.status, `GET ${path}: ${errorMessage(r.status, r.body)}`, r.headers.get('retry-after'), remoteNow(r.headers));
    let root: XNode | null;
    try {
      root = parseXml(r.body);
    } catch {
      throw new RemoteError(r.status, `GET ${path}: the answer is not XML (is this a Basecamp/Bivouac API?)`);
    }
    return { root, headers: r.headers };
  }

  async list(resource: ResourceKey, path: string): Promise<WireRow[]> {
    return decodeCollection(RESOURCES[resource], (await this.getXml(path)).root);
  }

  /** The signed-in person, with their API token (`/me.xml`, the one route the clone needs beyond the seed). */
  async me(): Promise<WireRow & { token: string | null }> {
    const { root } = await this.getXml('/me.xml');
    if (!root || root.name !== 'person') throw new RemoteError(200, 'GET /me.xml did not answer a person: not a Bivouac/Basecamp API');
    const p = decodeRecord(RESOURCES.person, root);
    return { ...p, token: typeof p.token === 'string' ? p.token : null };
  }

  /** The sync extension, if the remote has it; a plain server answers anything else (404, HTML, XML). */
  async capabilities(): Promise<Capabilities> {
    const r = await this.request('GET', '/sync/capabilities.json');
    // "Busy, retry later" is not "no such route": taking a busy team server for a plain one would push without Idempotency-Key.
    if (r.status === 503 || r.status === 429) throw new RemoteError(r.status, `GET /sync/capabilities.json: ${errorMessage(r.status, r.body)}`, r.headers.get('retry-after'), remoteNow(r.headers));
    this.batch = null;
    if (r.status !== 200) return { feed: false, idempotency: false };
    try {
      const j = JSON.parse(r.body) as { protocol?: number; version?: unknown; feed?: boolean; idempotency?: boolean; batch?: unknown; notices?: unknown; admin?: unknown };
      if (j.protocol !== 1) return { feed: false, idempotency: false };
      // A batch is only safe with idempotent mutations (a lost answer is settled by replaying the keys).
      this.batch = j.idempotency === true ? batchCaps(j.batch) : null;
      const version = typeof j.version === 'number' && Number.isSafeInteger(j.version) && j.version > 0 ? j.version : 1;
      return { feed: j.feed === true, idempotency: j.idempotency === true, batch: this.batch, notices: j.feed === true && j.notices === true, version,
        // Only with idempotent writes: a person or a company created twice (a lost answer) is not undone by a rejection.
        admin: j.idempotency === true && j.admin === true };
    } catch {
      return { feed: false, idempotency: false };
    }
  }

  /**
   * One page of the change feed. A 410 (cursor too old) is a RemoteError with status 410. A page that
   * is not a feed page, or a cursor that is not one, is a RemoteFeedBroken; an entry that cannot be
   * represented here (unknown resource or op, an id that is not a safe integer) is left out and named
   * in `refused` (D251), the rest goes on.
   */
  async changes(since: string, limit = 500): Promise<{ cursor: string; more: boolean; clock: number | null; changes: FeedChange[]; refused: string[] }> {
    // items=0: todo lists without their embedded items (the client reads items from their own entries and
    // drops embedded ones anyway; an older server ignores the parameter). D170. ahead=1: a page carries the
    // records its records reference ahead of their entries (D348; an older server ignores it: records then wait, D248).
    let path: string;
    let r: RemoteResponse;
    for (;;) {
      path = `/sync/changes.json?since=${encodeURIComponent(since)}&limit=${limit}&items=0&ahead=1`;
      try {
        r = await this.request('GET', path, null, {}, Math.min(this.maxAnswerBytes, FEED_PAGE_MAX_BYTES));
        break;
      } catch (e) {
        // A page too large: the same cursor in smaller pages (D278); one change too large is the error.
        if (e instanceof RemoteTooLarge && limit > 1) { limit = Math.max(1, Math.floor(limit / 10)); continue; }
        throw e;
      }
    }
    if (r.status !== 200) throw new RemoteError(r.status, `GET ${path}: ${errorMessage(r.status, r.body)}`, r.headers.get('retry-after'), remoteNow(r.headers));
    let j: { cursor?: unknown; more?: unknown; clock?: unknown; changes?: unknown };
    try {
      j = JSON.parse(r.body) as typeof j;
    } catch {
      throw new RemoteFeedBroken(200, `GET ${path}: the answer is not JSON: not a change feed`);
    }
    const cursor = typeof j?.cursor === 'string' || typeof j?.cursor === 'number' ? String(j.cursor) : '';
    if (!CURSOR.test(cursor) || !Array.isArray(j.changes)) throw new RemoteFeedBroken(200, `GET ${path}: not a change feed page (a cursor of 1 to 16 digits and a list of changes)`);
    const refused: string[] = [];
    const changes: FeedChange[] = [];
    for (const c of j.changes as { seq?: unknown; resource?: unknown; id?: unknown; op?: unknown; record?: unknown }[]) {
      const res = typeof c?.resource === 'string' && Object.hasOwn(RESOURCES, c.resource) ? c.resource as ResourceKey : null;
      const op = c?.op === 'upsert' || c?.op === 'delete' || c?.op === 'resync' ? c.op : null;
      if (!res || !op || badId(c.id) || typeof c.seq !== 'number' || !Number.isFinite(c.seq)) {
        refused.push(`a feed entry that cannot be represented here (${JSON.stringify({ resource: c?.resource, id: c?.id, op: c?.op }).slice(0, 200)})`);
        continue;
      }
      let record: WireRow | undefined;
      if (op === 'upsert' && c.record && typeof c.record === 'object') {
        record = decodeRecord(RESOURCES[res], jsonTree(c.record));
      }
      changes.push({ seq: c.seq, resource: res, id: c.id as number, op, record });
    }
    return {
      cursor, more: j.more === true,
      clock: j.clock !== undefined && /^\d{1,16}$/.test(String(j.clock)) ? Number(j.clock) : null, // absent on an older team server
      changes, refused,
    };
  }
}
