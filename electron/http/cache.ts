// A cache of rendered GET responses, validated against the store's change token: a hit is served
// only if nothing was written since it was rendered (by this process or, for SQLite, by any other
// connection to the same file). Keyed per caller, format, URL and UTC date (milestone filters
// depend on "today"). Bounded by bytes, least recently used first out. One per app instance:
// no module-level state.
//
// Admission (D131): a response is kept only when its key was already asked for under the same
// token. Reads of ever different records (a team's clients, writes in between) rendered each into the
// cache, almost none was read again before the next write made it stale, and the churn of 16 MB of
// bodies surviving young-generation collections grew V8's heap to ~200 MB. Repeated reads (a board
// polling its lists, the same page opened twice) are kept from their second request on.
//
// Eviction is frequency-aware (D205): a response that would push others out gets in only if those it
// would push out were asked for less often than it was (or are stale). Without that, reads cycling over
// more answers than fit (a board's 400 lists read in turn) passed the admission test, pushed each other
// out before any was read again, served no hit at all, and promoted every 40 KB body into V8's old space
// before it died: the cached service ended at 451 MB RSS against 211 MB with the cache off. An entry's
// count goes up with each hit (up to 15) and down by one each time it turns a newcomer away, so an entry
// that stops being read makes room again.

import { flat } from '../../shared/codec/flat.ts';

export interface Rendered {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly type: string | null;
  /**
   * Kept as a string: Node writes a string body together with the headers in one write, which
   * measured faster (12.7k vs 11.5k req/s) than a cached Buffer written with writev.
   */
  readonly body: string;
}

interface Entry { readonly token: string; readonly r: Rendered; readonly size: number; hits: number }

/** A count stops here: an entry read a thousand times once does not block newcomers for a thousand turns. */
const MAX_HITS = 15;

export class ResponseCache {
  private readonly map = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly maxEntry: number;
  /** Keys asked for and not kept, with the token they were asked under and how often (oldest first out). */
  private readonly seen = new Map<string, { token: string; n: number }>();
  private readonly maxSeen: number;
  constructor(maxBytes = 16 * 1024 * 1024, maxSeen = 4096) {
    this.maxBytes = maxBytes;
    this.maxEntry = Math.max(1, Math.floor(maxBytes / 8));
    this.maxSeen = maxSeen;
  }

  /**
   * The newest change token asked for (D205, D207). A response rendered under an older one (a write committed
   * while it was rendered) is not kept; a request still holding an older token neither drops nor counts as
   * stale the entries of the newer one; and a late request with an older token does not make it the newest.
   */
  private latest = '';
  /** For tokens that are not ordered (not the stores' numbers): the ones that were the latest before it. */
  private readonly retired = new Set<string>();

  /** Is `token` the newest asked for (it becomes so when newer)? False for an older one. */
  private current(token: string): boolean {
    if (token === this.latest) return true;
    const o = this.latest === '' ? 1 : order(token, this.latest);
    if (o === null) { // not ordered: the last one seen is the newest, those before it are retired
      if (this.retired.has(token)) return false;
      if (this.latest) this.retired.add(this.latest);
      if (this.retired.size > 16) this.retired.delete(this.retired.values().next().value!);
      this.latest = token;
      return true;
    }
    if (o < 0) return false;
    this.latest = token;
    return true;
  }

  get(key: string, token: string): Rendered | undefined {
    if (!this.current(token)) return undefined; // an older state: nothing of it is kept, nothing newer dropped
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    if (e.token !== token) {
      this.bytes -= e.size;
      return undefined;
    }
    if (e.hits < MAX_HITS) e.hits++;
    this.map.set(key, e); // most recently used
    return e.r;
  }

  set(key: string, token: string, r: Rendered): void {
    const size = r.body.length * 2 + key.length * 2 + 256;
    if (size > this.maxEntry) return;
    // A newer token was asked for since this one (a write committed while this was rendered): a response
    // of an older state is not kept.
    if (!this.current(token)) return;
    const old = this.map.get(key);
    if (old?.token === token) return; // kept meanwhile by a request asking for the same (its count stands)
    let s = this.seen.get(key);
    if (s?.token !== token) s = { token, n: 0 };
    s.n++;
    this.seen.delete(key);
    if (s.n < 2) { // asked for once under this token: remembered, not kept (D131)
      this.remember(key, s);
      return;
    }
    // Who would go, least recently used first: only stale entries and entries asked for less often (D205).
    // The stale entry of this key goes first in any case.
    let free = this.maxBytes - this.bytes + (old ? old.size : 0);
    const out: string[] = [];
    if (free < size) {
      for (const [k, e] of this.map) {
        if (k === key) continue;
        if (e.token === token && e.hits >= s.n) {
          e.hits--; // turned a newcomer away: it must be read again to keep its place
          this.remember(key, s);
          return;
        }
        out.push(k);
        free += e.size;
        if (free >= size) break;
      }
    }
    if (old) { this.map.delete(key); this.bytes -= old.size; }
    for (const k of out) {
      this.bytes -= this.map.get(k)!.size;
      this.map.delete(k);
    }
    // A kept body is made flat once (D213, D225): rendered as a rope of thousands of pieces, it would keep
    // them all alive and be walked again at every hit (the Latin-1 write flattens the head + body it sends,
    // not the body; the UTF-8 length did flatten the body itself).
    flat(r.body);
    this.map.set(key, { token, r, size, hits: Math.min(s.n, MAX_HITS) });
    this.bytes += size;
  }

  private remember(key: string, s: { token: string; n: number }): void {
    this.seen.set(key, s);
    if (this.seen.size > this.maxSeen) this.seen.delete(this.seen.keys().next().value!);
  }

  /** False when the cache keeps nothing (0 bytes): callers skip building keys. */
  get enabled(): boolean { return this.maxBytes > 0; }

  get size(): { entries: number; bytes: number; seen: number } {
    return { entries: this.map.size, bytes: this.bytes, seen: this.seen.size };
  }
}

/**
 * The order of two change tokens: both stores' tokens are numbers joined by `:` (SQLite: its commits and
 * `data_version`; PostgreSQL: the commit counter), each part never decreasing. -1: `a` is older, 1: newer,
 * 0: the same state; null: not comparable (other tokens, as tests give).
 */
export function order(a: string, b: string): -1 | 0 | 1 | null {
  const x = a.split(':'), y = b.split(':');
  if (x.length !== y.length) return null;
  let less = false, more = false;
  for (let k = 0; k < x.length; k++) {
    if (!/^\d+$/.test(x[k]) || !/^\d+$/.test(y[k])) return null;
    const d = Number(x[k]) - Number(y[k]);
    if (d < 0) less = true;
    else if (d > 0) more = true;
  }
  if (less && more) return null;
  return less ? -1 : more ? 1 : 0;
}
