import { describe, expect, it } from 'vitest';
import { dropIndex, keyboardTarget, moveCol, moveIndex, moveItem } from '../../../renderer/lib/reorder.ts';

const cols = () => [
  { id: 1, items: [{ id: 11, position: 1 }, { id: 12, position: 2 }, { id: 13, position: 3 }] },
  { id: 2, items: [{ id: 21, position: 1 }] },
  { id: 3, items: [] as { id: number; position: number }[] },
];
const ids = (c: { items: { id: number }[] }) => c.items.map((i) => i.id);

describe('reorder math', () => {
  it('moveIndex moves and clamps', () => {
    expect(moveIndex(['a', 'b', 'c'], 0, 2)).toEqual(['b', 'c', 'a']);
    expect(moveIndex(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
    expect(moveIndex(['a', 'b', 'c'], 1, 99)).toEqual(['a', 'c', 'b']);
    expect(moveIndex(['a'], 5, 0)).toEqual(['a']);
  });

  it('moves an item within its list and renumbers positions', () => {
    const c = cols();
    const out = moveItem(c, 13, 1, 0)!;
    expect(ids(out[0])).toEqual([13, 11, 12]);
    expect(out[0].items.map((i) => i.position)).toEqual([1, 2, 3]);
    expect(out[1]).toBe(c[1]); // untouched columns are kept
    expect(ids(c[0])).toEqual([11, 12, 13]); // input untouched
  });

  it('moves an item to another list, closing the gap', () => {
    const out = moveItem(cols(), 12, 2, 1)!;
    expect(ids(out[0])).toEqual([11, 13]);
    expect(out[0].items.map((i) => i.position)).toEqual([1, 2]);
    expect(ids(out[1])).toEqual([21, 12]);
    expect(out[1].items[1].position).toBe(2);
  });

  it('moves into an empty list; clamps the index; unknown item is null', () => {
    expect(ids(moveItem(cols(), 11, 3, 7)![2])).toEqual([11]);
    expect(moveItem(cols(), 99, 1, 0)).toBeNull();
    expect(moveItem(cols(), 11, 99, 0)).toBeNull();
  });

  it('dropIndex: before/after a target, with the dragged item removed first', () => {
    const items = [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }];
    expect(dropIndex(items, 1, 3, false)).toBe(1); // [2,|1|,3,4]
    expect(dropIndex(items, 1, 3, true)).toBe(2); // [2,3,|1|,4]
    expect(dropIndex(items, 4, 1, false)).toBe(0);
    expect(dropIndex(items, 9, null, false)).toBe(4); // from another list: append
    expect(dropIndex(items, 2, null, false)).toBe(3);
    expect(dropIndex(items, 2, 77, false)).toBe(3);
  });

  it('moveCol puts a column at an index of the final order', () => {
    const c = [{ id: 1 }, { id: 2 }, { id: 3 }];
    expect(moveCol(c, 3, 0).map((x) => x.id)).toEqual([3, 1, 2]);
    expect(moveCol(c, 1, 2).map((x) => x.id)).toEqual([2, 3, 1]);
    expect(moveCol(c, 1, -4).map((x) => x.id)).toEqual([1, 2, 3]);
    expect(moveCol(c, 9, 0).map((x) => x.id)).toEqual([1, 2, 3]);
  });

  it('keyboard targets: up/down within, left/right to neighbours, none at the edges', () => {
    const c = cols();
    expect(keyboardTarget(c, 12, 'up')).toEqual({ col: 1, index: 0 });
    expect(keyboardTarget(c, 11, 'up')).toBeNull();
    expect(keyboardTarget(c, 13, 'down')).toBeNull();
    expect(keyboardTarget(c, 13, 'right')).toEqual({ col: 2, index: 1 });
    expect(keyboardTarget(c, 11, 'left')).toBeNull();
    expect(keyboardTarget(c, 21, 'right')).toEqual({ col: 3, index: 0 });
  });
});
