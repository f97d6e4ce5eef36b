// Data derived from stored rows (counts, name maps), owned by one store instance and valid only
// while the token it was computed under stays the same (D42, D44). Every Store keeps one and answers
// `store.memo(key, compute, tables?)` with it; nothing of it lives at module level, so two processes
// on one database each hold their own and neither can serve what the other changed (their tokens
// differ). The token is the store's change token, or, when the value depends only on some tables,
// a token of those tables (a write elsewhere leaves the value valid).

export class DerivedCache {
  private readonly map = new Map<string, { token: string; value: unknown; used: boolean }>();
  private readonly max: number;
  /**
   * At `max` keys, half of them go (D203): first the values not read since the last time it was full, oldest
   * first, then the oldest of the others; what stays is marked unread again (a clock's second chance). Keys are per project and kind (D134,
   * D185): a team server with 1,000 projects holds ~8,000, one reading ~2,700 projects' comment figures
   * reaches the bound, and then keeps what it reads (the row caches, the name maps) instead of losing all.
   */
  constructor(max = 16_384) {
    this.max = max;
  }

  /**
   * The value of `key` under `token`: computed once per token. A value computed while the token
   * moved on (a commit during `compute`: `now()` differs) is returned but not kept.
   */
  async memo<T>(key: string, token: string, compute: () => Promise<T>, now: () => string): Promise<T> {
    const hit = this.map.get(key);
    if (hit && hit.token === token) {
      hit.used = true;
      return hit.value as T;
    }
    const value = await compute();
    if (now() === token) {
      // Looked up again: another request may have computed and kept this key while this one computed.
      if (!this.map.has(key) && this.map.size >= this.max) this.evict();
      this.map.set(key, { token, value, used: false });
    }
    return value;
  }

  /** Down to half of `max`: the unread go first, oldest first, then the oldest read ones; the rest are unread again. */
  private evict(): void {
    let excess = this.map.size - (this.max >> 1);
    for (const [k, e] of this.map) {
      if (excess <= 0) break;
      if (!e.used) { this.map.delete(k); excess--; }
    }
    for (const k of this.map.keys()) {
      if (excess <= 0) break;
      this.map.delete(k);
      excess--;
    }
    for (const e of this.map.values()) e.used = false;
  }

  get size(): number { return this.map.size; }
  has(key: string): boolean { return this.map.has(key); }
}
