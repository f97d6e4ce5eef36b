// The store's cache of derived values (electron/store/derived.ts): computed once per token, and bounded
// without dropping everything at once (D203).

import { describe, expect, it } from 'vitest';
import { DerivedCache } from '../../../electron/store/derived.ts';

const memo = (c: DerivedCache, key: string, token = 't', value: unknown = key) => c.memo(key, token, async () => value, () => token);

describe('DerivedCache', () => {
  it('computes a key once per token, and again when the token moves', async () => {
    const c = new DerivedCache(8);
    let n = 0;
    const get = (token: string) => c.memo('k', token, async () => ++n, () => token);
    expect([await get('a'), await get('a'), await get('b'), await get('b')]).toEqual([1, 1, 2, 2]);
  });

  it('keeps nothing computed while the token moved on', async () => {
    const c = new DerivedCache(8);
    expect(await c.memo('k', 'a', async () => 1, () => 'b')).toBe(1);
    expect(c.has('k')).toBe(false);
  });

  it('when full, drops half: the values not read since first, oldest first; the read ones stay', async () => {
    const c = new DerivedCache(8);
    for (let k = 0; k < 8; k++) await memo(c, `k${k}`);
    for (const k of ['k0', 'k1', 'k6']) await memo(c, k); // read again
    await memo(c, 'new');
    expect(c.size).toBe(5);
    // unread k2..k5 and k7 were candidates: the oldest four went (down to 4), then `new` came in
    expect(['k0', 'k1', 'k6', 'k7', 'new'].every((k) => c.has(k))).toBe(true);
    for (const k of ['k2', 'k3', 'k4', 'k5']) expect(c.has(k)).toBe(false);
  });

  it('when every value was read, the oldest go; the survivors must be read again to stay next time', async () => {
    const c = new DerivedCache(8);
    for (let k = 0; k < 8; k++) await memo(c, `k${k}`);
    for (let k = 0; k < 8; k++) await memo(c, `k${k}`);
    await memo(c, 'a');
    expect(['k4', 'k5', 'k6', 'k7', 'a'].every((k) => c.has(k))).toBe(true);
    expect(c.size).toBe(5);
    await memo(c, 'k7'); // read: stays at the next eviction
    for (const k of ['b', 'c', 'd']) await memo(c, k);
    expect(c.size).toBe(8);
    await memo(c, 'e');
    expect(c.has('k7')).toBe(true);
    expect(c.has('k4')).toBe(false);
    expect(c.size).toBe(5);
  });

  it('stays bounded under many different keys, and a value kept is the one computed for it', async () => {
    const c = new DerivedCache(64);
    for (let k = 0; k < 10_000; k++) {
      await memo(c, `k${k}`, 't', k);
      if (k % 3 === 0) expect(await memo(c, `k${k >> 1}`, 't', k >> 1)).toBe(k >> 1);
      expect(c.size).toBeLessThanOrEqual(64);
    }
  });

  it('concurrent misses of one key evict once and stay within the bound', async () => {
    const c = new DerivedCache(8);
    for (let k = 0; k < 7; k++) await memo(c, `k${k}`);
    for (let k = 0; k < 7; k++) await memo(c, `k${k}`); // all read
    await Promise.all([memo(c, 'x'), memo(c, 'x')]); // 8 now: not full before either kept it
    expect(c.size).toBe(8);
    await Promise.all([memo(c, 'y'), memo(c, 'y'), memo(c, 'y')]);
    expect(c.size).toBe(5); // one eviction down to 4, then y
    // keys whose token moved on, recomputed concurrently, do not push it over its bound
    const d = new DerivedCache(8);
    for (let k = 0; k < 8; k++) await memo(d, `k${k}`, 'a');
    await Promise.all(Array.from({ length: 8 }, (_, k) => memo(d, `k${k}`, 'b')));
    expect(d.size).toBeLessThanOrEqual(8);
  });
});
