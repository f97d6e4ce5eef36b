// Reorder math for the todo board: pure functions over lists of items.

export interface Col<I extends { id: number }> { id: number; items: I[] }

/** Move `arr[from]` to index `to` (indices in the original array; `to` is clamped). */
export function moveIndex<T>(arr: readonly T[], from: number, to: number): T[] {
  const out = arr.slice();
  if (from < 0 || from >= out.length) return out;
  const [x] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(to, out.length)), 0, x);
  return out;
}

/**
 * Move item `itemId` into column `toCol` so that it lands at `toIndex` in that column's final
 * order (clamped). Returns new columns (input untouched), or null if the item is not found.
 * Renumbers `position` 1..n in every touched column.
 */
export function moveItem<I extends { id: number; position?: number }, C extends Col<I>>(
  cols: readonly C[], itemId: number, toCol: number, toIndex: number,
): C[] | null {
  const src = cols.find((c) => c.items.some((i) => i.id === itemId));
  const dst = cols.find((c) => c.id === toCol);
  if (!src || !dst) return null;
  const item = src.items.find((i) => i.id === itemId)!;
  return cols.map((c) => {
    if (c !== src && c !== dst) return c;
    let items = c.items.filter((i) => i.id !== itemId);
    if (c === dst) {
      const at = Math.max(0, Math.min(toIndex, items.length));
      items = [...items.slice(0, at), item, ...items.slice(at)];
    }
    return { ...c, items: items.map((i, n) => ({ ...i, position: n + 1 })) };
  });
}

/**
 * The index an item should take when dropped on `target` (an item of `dstItems`) from `dragged`:
 * before the target, or after it when `after` is true. Indices are in the final order, i.e. with
 * the dragged item removed first.
 */
export function dropIndex(dstItems: readonly { id: number }[], draggedId: number, targetId: number | null, after: boolean): number {
  const rest = dstItems.filter((i) => i.id !== draggedId);
  if (targetId === null) return rest.length;
  const t = rest.findIndex((i) => i.id === targetId);
  if (t < 0) return rest.length;
  return after ? t + 1 : t;
}

/** Reorder columns: put `id` at `toIndex` of the final order. */
export function moveCol<C extends { id: number }>(cols: readonly C[], id: number, toIndex: number): C[] {
  const from = cols.findIndex((c) => c.id === id);
  if (from < 0) return cols.slice();
  const rest = cols.filter((c) => c.id !== id);
  const at = Math.max(0, Math.min(toIndex, rest.length));
  return [...rest.slice(0, at), cols[from], ...rest.slice(at)];
}

/** Where an Alt+Arrow key sends a card: same list up/down, or the neighbouring list (appended). */
export function keyboardTarget(cols: readonly Col<{ id: number }>[], itemId: number, key: 'up' | 'down' | 'left' | 'right'): { col: number; index: number } | null {
  const ci = cols.findIndex((c) => c.items.some((i) => i.id === itemId));
  if (ci < 0) return null;
  const idx = cols[ci].items.findIndex((i) => i.id === itemId);
  if (key === 'up') return idx > 0 ? { col: cols[ci].id, index: idx - 1 } : null;
  if (key === 'down') return idx < cols[ci].items.length - 1 ? { col: cols[ci].id, index: idx + 1 } : null;
  const nc = cols[ci + (key === 'left' ? -1 : 1)];
  if (!nc) return null;
  return { col: nc.id, index: Math.min(idx, nc.items.length) };
}
