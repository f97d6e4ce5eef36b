// The remote adapter (issue #8): talks to ANY server of the interface through its public XML
// routes (Basic auth, XML only: no .json twins, no /health), and to a Bivouac team server's sync
// extension when `GET /sync/capabilities.json` says so (change feed, Idempotency-Key).
// Every request has a timeout; a network error or timeout is a RemoteUnreachable, never a hang.

import { parseJson, parseXml, type XNode } from '../../shared/codec/in.ts';
import { RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import { decodeCollection, decodeRecord, type WireRow } from '../../shared/sync/wire.ts';

export type RemoteAuth = { readonly user: string; readonly password: string } | { readonly token: string };

export interface RemoteOptions {
  readonly url: string;
  readonly auth: RemoteAuth;
  /** Per request (default 15 s). */
  readonly timeoutMs?: number;
}

export interface RemoteResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

export interface Capabilities { readonly feed: boolean; readonly idempotency: boolean }

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
  /** Requests sent (the bench and tests count them). */
  requests = 0;

  constructor(o: RemoteOptions) {
    this.url = o.url.replace(/\/+$/, '');
    const [u, p] = 'token' in o.auth ? [o.auth.token, 'X'] : [o.auth.user, o.auth.password];
    this.authHeader = `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    this.timeoutMs = o.timeoutMs ?? 15_000;
  }

  async request(method: string, path: string, body: string | null = null, headers: Record<string, string> = {}): Promise<RemoteResponse> {
    this.requests++;
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        method,
        headers: { authorization: this.authHeader, ...(body !== null ? { 'content-type': 'application/xml' } : {}), ...headers },
        body: body ?? undefined,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return { status: res.status, headers: res.headers, body: await res.text() };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      throw new RemoteUnreachable(`${this.url} is unreachable: ${err.name === 'TimeoutError' ? 'timed out' : err.cause?.code ?? err.message}`);
    }
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
    if (r.status !== 200) return { feed: false, idempotency: false };
    try {
      const j = JSON.parse(r.body) as { protocol?: number; feed?: boolean; idempotency?: boolean };
      if (j.protocol !== 1) return { feed: false, idempotency: false };
      return { feed: j.feed === true, idempotency: j.idempotency === true };
    } catch {
      return { feed: false, idempotency: false };
    }
  }

  /** One page of the change feed. A 410 (cursor too old) is a RemoteError with status 410. */
  async changes(since: string, limit = 500): Promise<{ cursor: string; more: boolean; clock: number | null; changes: FeedChange[] }> {
    // items=0: todo lists without their embedded items (the client reads items from their own entries and
    // drops embedded ones anyway; an older server ignores the parameter). D170.
    const path = `/sync/changes.json?since=${encodeURIComponent(since)}&limit=${limit}&items=0`;
    const r = await this.request('GET', path);
    if (r.status !== 200) throw new RemoteError(r.status, `GET ${path}: ${errorMessage(r.status, r.body)}`, r.headers.get('retry-after'), remoteNow(r.headers));
    const j = JSON.parse(r.body) as { cursor: string; more: boolean; clock?: string; changes: { seq: number; resource: ResourceKey; id: number; op: FeedChange['op']; record?: unknown }[] };
    return {
      cursor: String(j.cursor), more: j.more === true,
      clock: j.clock !== undefined && /^\d+$/.test(String(j.clock)) ? Number(j.clock) : null, // absent on an older team server
      changes: j.changes.map((c) => ({
        seq: c.seq, resource: c.resource, id: c.id, op: c.op,
        record: c.record && RESOURCES[c.resource] ? decodeRecord(RESOURCES[c.resource], parseJson(JSON.stringify(c.record))!) : undefined,
      })),
    };
  }
}
