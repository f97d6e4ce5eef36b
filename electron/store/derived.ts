// Data derived from stored rows (counts, name maps), owned by one store instance and valid only
// while the store's change token stays the same (D42). Every Store keeps one and answers
// `store.memo(key, compute)` with it; nothing of it lives at module level, so two processes on one
// database each hold their own and neither can serve what the other changed (their tokens differ).

export class DerivedCache {
  private token: string | null = null;
  private readonly map = new Map<string, unknown>();
  private readonly max: number;
  constructor(max = 4096) {
    this.max = max;
  }

  /**
   * The value of `key` under `token`: computed once per token. A value computed while the token moved
   * on (another commit during `compute`) is returned but not kept.
   */
  async memo<T>(token: string, key: string, compute: () => Promise<T>, now: () => Promise<string>): Promise<T> {
    if (token !== this.token) {
      this.map.clear();
      this.token = token;
    }
    if (this.map.has(key)) return this.map.get(key) as T;
    const value = await compute();
    if ((await now()) === token && this.token === token) {
      if (this.map.size >= this.max) this.map.clear();
      this.map.set(key, value);
    }
    return value;
  }

  get size(): number { return this.map.size; }
}
