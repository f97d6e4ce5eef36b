// Multi-row statements (D350): how many rows each statement of a batch carries. Sizes are a largest power of
// two, then the powers of two of what is left, so one table's statements have at most a handful of shapes (a
// statement is prepared and kept by its text: 1,000 rows in chunks of any size would keep 1,000 statements).

/** Bound parameters one statement may carry (SQLite's default limit is 32,766; PostgreSQL's 65,535). */
const MAX_PARAMS = 32_000;

/** The largest power of two of rows of `perRow` parameters a statement carries, at most `cap`. */
export function rowsPerStatement(perRow: number, cap = 256): number {
  const most = Math.max(1, Math.min(cap, Math.floor(MAX_PARAMS / Math.max(1, perRow))));
  return 2 ** Math.floor(Math.log2(most));
}

/** The rows of each statement for `n` rows: `max` (a power of two) at a time, then the powers of two of the rest. */
export function batchSizes(n: number, max: number): number[] {
  const out: number[] = [];
  let left = n;
  for (; left >= max; left -= max) out.push(max);
  for (let b = max >> 1; b >= 1; b >>= 1) if (left >= b) { out.push(b); left -= b; }
  return out;
}

/** `VALUES` of `size` rows, each the tuple `tuple` (e.g. `(?, ?, NULL)`). */
export const valuesOf = (tuple: string, size: number): string => `VALUES ${new Array<string>(size).fill(tuple).join(', ')}`;
