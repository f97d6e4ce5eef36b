// Rows read through SqliteStore are made by an object literal compiled per statement (D124): the same
// objects as assigning the columns one by one, whatever the column names.

import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../electron/store/sqlite.ts';

describe('SqliteStore rows', () => {
  let store: SqliteStore | null = null;
  afterEach(async () => { await store?.close(); store = null; });

  it('carry every column under its name, with quotes, spaces and repeats as assignments would', () => {
    store = new SqliteStore(':memory:');
    const rows = store.allSync(`SELECT 1 AS a, 2 AS a, 'q"uote' AS "x""y", NULL AS "a b", 'é' AS "ünï" UNION ALL SELECT 5, 6, '', 7, ''`);
    expect(rows).toEqual([
      { a: 2, 'x"y': 'q"uote', 'a b': null, 'ünï': 'é' },
      { a: 6, 'x"y': '', 'a b': 7, 'ünï': '' },
    ]);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(store.getSync('SELECT 1 AS n WHERE 0')).toBeUndefined();
    expect(store.getSync("SELECT 'v' AS \"'); throw new Error('x'); ('\"")).toEqual({ "'); throw new Error('x'); ('": 'v' });
  });

  it('a column named __proto__ is a property, as with assignments it sets the prototype only from an object', () => {
    store = new SqliteStore(':memory:');
    const viaLoop: Record<string, unknown> = {};
    viaLoop.__proto__ = 3; // a number is ignored by the __proto__ setter
    const row = store.getSync('SELECT 3 AS "__proto__", 4 AS b')!;
    expect(row.b).toBe(4);
    expect(Object.getPrototypeOf(row)).toBe(Object.getPrototypeOf(viaLoop));
  });
});
