// The Writer's counts of names (D44, D134, D228, D230: `table`, `table@project`, `table:rows…`, `*`), kept in
// shared memory so that the read threads (http/read-pool.ts, D232) validate their memos by the same counts as
// the thread that writes, without a message per write and without dropping every memo at every commit (as
// PRAGMA data_version would: two-processes-s12.md).
//
// A name is a slot of a fixed table, found by hashing it: two names in one slot only count each other's
// writes (a memo recomputed for nothing, never one kept too long). Slot 0 is the epoch: the writing thread
// adds one after each commit, *before* it counts the commit's names, so that a reader that sees a name's new
// count also sees the new epoch (both sequentially consistent, Atomics).

const EPOCH = 0;
/** Slots of names: 2^16 (256 KB); a team's dataset of 500 projects names ~12,000. */
export const NAME_SLOTS = 1 << 16;

/** FNV-1a of a string's UTF-16 units, onto 1 … NAME_SLOTS − 1 (0 is the epoch). */
function slotOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return 1 + ((h >>> 0) % (NAME_SLOTS - 1));
}

export class SharedCounts {
  readonly buffer: SharedArrayBuffer;
  private readonly a: Int32Array;
  /** Slots already hashed (a thread's own: names recur, ~100 ns of hashing saved each). */
  private readonly slots = new Map<string, number>();

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(NAME_SLOTS * 4)) {
    if (buffer.byteLength !== NAME_SLOTS * 4) throw new Error(`shared counts: ${NAME_SLOTS * 4} bytes expected, ${buffer.byteLength} given`);
    this.buffer = buffer;
    this.a = new Int32Array(buffer);
  }

  private slot(name: string): number {
    let s = this.slots.get(name);
    if (s === undefined) {
      s = slotOf(name);
      if (this.slots.size >= 65_536) this.slots.clear();
      this.slots.set(name, s);
    }
    return s;
  }

  /** Commits that named `name` (or another name of its slot), modulo 2^32. */
  get(name: string): number { return Atomics.load(this.a, this.slot(name)); }

  /** Commits of the writing thread, modulo 2^32 (compared for equality only). */
  epoch(): number { return Atomics.load(this.a, EPOCH); }

  /** A commit that changed these names: the epoch first, then each name once. */
  committed(names: Iterable<string>): void {
    Atomics.add(this.a, EPOCH, 1);
    const seen = new Set<number>();
    for (const n of names) {
      const s = this.slot(n);
      if (seen.has(s)) continue;
      seen.add(s);
      Atomics.add(this.a, s, 1);
    }
  }
}
