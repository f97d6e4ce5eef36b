// Data derived from stored rows (counts, name maps), owned by one store instance and valid only
// while the token it was computed under stays the same (D42, D44). Every Store keeps one and answers
// `store.memo(key, compute, tables?)` with it; nothing of it lives at module level, so two processes
// on one database each hold their own and neither can serve what the other changed (their tokens
// differ). The token is the store's change token, or, when the value depends only on some tables,
// a token of those tables (a write elsewhere leaves the value valid).

export class DerivedCache {
  private readonly map = new Map<string, { token: string; value: unknown }>();
  private readonly max: number;
  /**
   * At `max` keys everything is dropped at once (rare: keys are per project and kind, D134, D185; a team
   * server with 1,000 projects holds ~8,000).
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
    if (hit && hit.token === token) return hit.value as T;
    const value = await compute();
    if (now() === token) {
      if (this.map.size >= this.max) this.map.clear();
      this.map.set(key, { token, value });
    }
    return value;
  }

  get size(): number { return this.map.size; }
}
