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

interface Entry { readonly token: string; readonly r: Rendered; readonly size: number }

export class ResponseCache {
  private readonly map = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly maxEntry: number;
  /** Keys asked for once, with the token they were asked under (oldest first out). */
  private readonly seen = new Map<string, string>();
  private readonly maxSeen: number;
  constructor(maxBytes = 16 * 1024 * 1024, maxSeen = 4096) {
    this.maxBytes = maxBytes;
    this.maxEntry = Math.max(1, Math.floor(maxBytes / 8));
    this.maxSeen = maxSeen;
  }

  get(key: string, token: string): Rendered | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    if (e.token !== token) {
      this.bytes -= e.size;
      return undefined;
    }
    this.map.set(key, e); // most recently used
    return e.r;
  }

  set(key: string, token: string, r: Rendered): void {
    const size = r.body.length * 2 + key.length * 2 + 256;
    if (size > this.maxEntry) return;
    if (this.seen.get(key) !== token) {
      this.seen.delete(key);
      this.seen.set(key, token);
      if (this.seen.size > this.maxSeen) this.seen.delete(this.seen.keys().next().value!);
      return;
    }
    this.seen.delete(key);
    const old = this.map.get(key);
    if (old) { this.map.delete(key); this.bytes -= old.size; }
    this.map.set(key, { token, r, size });
    this.bytes += size;
    for (const [k, e] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= e.size;
    }
  }

  /** False when the cache keeps nothing (0 bytes): callers skip building keys. */
  get enabled(): boolean { return this.maxBytes > 0; }

  get size(): { entries: number; bytes: number; seen: number } {
    return { entries: this.map.size, bytes: this.bytes, seen: this.seen.size };
  }
}
