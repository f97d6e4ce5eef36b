// A hostile or broken remote for tests and the bench (issue #25): a real node:http server on 127.0.0.1
// in front of a real remote (a team server: `startRemote` in tests/support/sync-helpers.ts, or any URL), that
// passes requests through unchanged until a misbehaviour is switched on in `hostile.mode` (at any time,
// between or during syncs). It impersonates a team server (capabilities with the feed) or, with
// `plain`, a plain server of the interface (no /sync/*, no .json).
//
//   const h = await startHostileRemote(remote.url);
//   h.mode.endlessFeed = true;             // switch on
//   await h.until(() => h.stats.feedPages >= 50);  // wait for an event, not a time
//   h.behave();                            // everything off: the real remote answers again
//
// Huge answers are streamed (generated chunk by chunk, with backpressure): gigabytes are never held.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forwardTo } from './forward.ts';

/** 2^53 + 1: not representable as a JavaScript number (JSON.parse rounds it). */
export const OVERSIZED_ID = '9007199254740993';

export interface FeedEntry { seq: number; resource: string; id: number | string; op: string; record?: Record<string, unknown> }

export interface Misbehaviour {
  /** Stand in for a plain server: 404 for /sync/*, .json and POST /projects.xml. */
  plain?: boolean;
  /** The change feed never ends: `more: true` forever, each page 1000 deletes of new ids, the cursor advancing. */
  endlessFeed?: boolean;
  /** The change feed answers `more: true` with the cursor it was given (never moves). */
  stuckCursor?: boolean;
  /** Answers to paths matching `path` are `bytes` long (streamed, no Content-Length), an endless document. */
  hugeAnswer?: { path: RegExp; bytes: number };
  /** Real feed pages (and /projects.xml of a plain server) carry one more record whose id is 2^53 + 1. */
  oversizedId?: boolean;
  /** Writes (POST/PUT/DELETE) are answered 307 to this origin (another local server). */
  redirectWritesTo?: string;
  /** Rewrite the entries of real feed pages (e.g. move an item into another project's list). */
  editFeed?: (changes: FeedEntry[]) => FeedEntry[];
  /** After this many more requests, every request gets 401 (a token revoked half way through a clone). */
  unauthorizedAfter?: number;
  /** Once this many pages of the feed were answered in all (`stats.feedPages`), every request gets 401. */
  unauthorizedAfterFeedPages?: number;
  /** A request (method, path without query) for which this holds gets 401, and so does every request after it. */
  unauthorizedWhen?: (method: string, path: string) => boolean;
  /** Real feed pages of at most this many entries (the `limit` asked for is lowered): a clone in many pages. */
  feedLimit?: number;
  /** Every request gets 503 with `Retry-After: retryAfterSec` (seconds). */
  busy?: { retryAfterSec: number };
}

export interface HostileStats {
  requests: number;
  /** Pages of the change feed answered (real or made up). */
  feedPages: number;
  /** Bytes of huge answers written so far. */
  hugeBytes: number;
  /** Huge answers the client gave up on (closed the connection before the end). */
  hugeAborted: number;
  /** Writes answered with a redirect. */
  redirected: number;
  /** Every request: method, path (without query), status. */
  seen: { method: string; path: string; status: number }[];
}

export interface HostileRemote {
  readonly url: string;
  /** The switches; change them at any time. */
  readonly mode: Misbehaviour;
  readonly stats: HostileStats;
  /** Every misbehaviour off but `plain` (the real remote answers again). */
  behave(): void;
  /** Resolves when `pred` holds, checked after every request and chunk (rejects after `timeoutMs`). */
  until(pred: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Another local server ("a third host"): counts what reaches it and answers 404 to everything. */
export interface SideServer { readonly url: string; readonly seen: { method: string; path: string }[]; close(): Promise<void> }

export async function startSideServer(): Promise<SideServer> {
  const seen: SideServer['seen'] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? 'GET', path: req.url ?? '/' });
    req.resume();
    res.writeHead(404, { 'content-type': 'application/xml; charset=utf-8' });
    res.end('<?xml version="1.0" encoding="UTF-8"?>\n<errors><error>Not found</error></errors>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const XML = { 'content-type': 'application/xml; charset=utf-8' };
const errorXml = (msg: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<errors><error>${msg}</error></errors>`;

export async function startHostileRemote(target: string): Promise<HostileRemote> {
  const mode: Misbehaviour = {};
  const stats: HostileStats = { requests: 0, feedPages: 0, hugeBytes: 0, hugeAborted: 0, redirected: 0, seen: [] };
  const waiters = new Set<() => void>();
  const tick = () => { for (const w of [...waiters]) w(); };
  let madeUp = 1;

  const forward = forwardTo(target);

  const answer = (res: ServerResponse, method: string, path: string, status: number, headers: Record<string, string | string[] | undefined>, body: string | Buffer) => {
    const h = { ...headers };
    delete h['transfer-encoding'];
    delete h.connection;
    delete h['content-length'];
    res.writeHead(status, h);
    res.end(body);
    stats.seen.push({ method, path, status });
    tick();
  };

  /** `bytes` of an endless document, written as the client reads (backpressure), never held. */
  const stream = (res: ServerResponse, method: string, path: string, bytes: number) => {
    const json = path.endsWith('.json');
    res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/xml; charset=utf-8' });
    stats.seen.push({ method, path, status: 200 });
    const head = Buffer.from(json ? '{"cursor":"1","more":false,"changes":[' : '<?xml version="1.0" encoding="UTF-8"?>\n<projects type="array">');
    const unit = Buffer.from(json ? '{"seq":1,"resource":"company","id":1,"op":"delete"},'.repeat(1300) : '<project><id type="integer">1</id><name>x</name></project>'.repeat(1100));
    let sent = 0;
    let finished = false;
    res.on('close', () => { if (!finished) stats.hugeAborted++; tick(); });
    const pump = () => {
      while (sent < bytes) {
        const chunk = sent === 0 ? head : unit;
        sent += chunk.length;
        stats.hugeBytes += chunk.length;
        if (!res.write(chunk)) { res.once('drain', pump); tick(); return; }
      }
      finished = true;
      res.end();
      tick();
    };
    pump();
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)).catch(() => req.socket.destroy()));
  });

  async function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    const m = mode;
    stats.requests++;
    if (m.busy) return answer(res, method, path, 503, { ...XML, 'retry-after': String(m.busy.retryAfterSec) }, errorXml('Busy: retry later'));
    if ((m.unauthorizedAfterFeedPages !== undefined && stats.feedPages >= m.unauthorizedAfterFeedPages) || m.unauthorizedWhen?.(method, path)) m.unauthorizedAfter = 0;
    if (m.unauthorizedAfter !== undefined) {
      if (m.unauthorizedAfter <= 0) return answer(res, method, path, 401, { ...XML, 'www-authenticate': 'Basic realm="Bivouac"' }, errorXml('Unauthorized'));
      m.unauthorizedAfter--;
    }
    if (m.plain && (path.startsWith('/sync/') || path.endsWith('.json') || path === '/health' || (method === 'POST' && path === '/projects.xml'))) {
      return answer(res, method, path, 404, XML, errorXml('No such route'));
    }
    if (m.hugeAnswer && m.hugeAnswer.path.test(path)) return stream(res, method, path, m.hugeAnswer.bytes);
    if (m.redirectWritesTo && method !== 'GET' && method !== 'HEAD') {
      stats.redirected++;
      return answer(res, method, path, 307, { ...XML, location: m.redirectWritesTo + (req.url ?? '/') }, '');
    }
    const feed = path === '/sync/changes.json';
    if (feed && (m.endlessFeed || m.stuckCursor)) {
      const since = url.searchParams.get('since') || '0';
      stats.feedPages++;
      const cursor = m.stuckCursor ? since : String(BigInt(since) + 1000n);
      const changes = m.stuckCursor ? [] : Array.from({ length: 1000 }, () => ({ seq: Number(cursor), resource: 'comment', id: 1_000_000_000 + madeUp++, op: 'delete' }));
      return answer(res, method, path, 200, { 'content-type': 'application/json' }, JSON.stringify({ cursor, more: true, clock: String(BigInt(cursor) + 1_000_000n), changes }));
    }
    if (feed && m.feedLimit) {
      url.searchParams.set('limit', String(m.feedLimit));
      req.url = url.pathname + url.search;
    }
    const r = await forward(req, body);
    if (feed && r.status === 200) {
      stats.feedPages++;
      if (m.editFeed || m.oversizedId) {
        const page = JSON.parse(r.body.toString('utf8')) as { changes: FeedEntry[] };
        if (m.editFeed) page.changes = m.editFeed(page.changes);
        if (m.oversizedId) {
          const seq = page.changes.length ? page.changes[page.changes.length - 1].seq : 1;
          page.changes.push({ seq, resource: 'company', id: 'BIG', op: 'upsert', record: { id: 'BIG', name: 'Oversized Ltd', 'can-see-private': false } });
        }
        return answer(res, method, path, 200, r.headers, JSON.stringify(page).replace(/"BIG"/g, OVERSIZED_ID));
      }
    }
    if (m.plain && m.oversizedId && method === 'GET' && path === '/projects.xml' && r.status === 200) {
      const xml = r.body.toString('utf8').replace('</projects>', `<project><id type="integer">${OVERSIZED_ID}</id><name>Oversized</name><status>active</status></project></projects>`);
      return answer(res, method, path, 200, r.headers, xml);
    }
    return answer(res, method, path, r.status, r.headers, r.body);
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, mode, stats,
    behave() { for (const k of Object.keys(mode)) if (k !== 'plain') delete (mode as Record<string, unknown>)[k]; },
    until(pred, timeoutMs = 30_000) {
      if (pred()) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => { waiters.delete(check); reject(new Error('hostile remote: the awaited condition did not happen')); }, timeoutMs);
        const check = () => { if (pred()) { clearTimeout(timer); waiters.delete(check); resolve(); } };
        waiters.add(check);
      });
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
