// The replica's bookkeeping keys (sync_state) are a type (issue #30): a misspelt key does not compile, and
// every key the engine writes reads back as written. The `@ts-expect-error` lines are checked by typecheck.

import { it, expect } from 'vitest';
import { SqliteStore } from '../../../../electron/store/sqlite.ts';
import { putShadow, setState, shadowBatches, state, type SyncStateKey } from '../../../../electron/store/queries/replica.ts';

it('every key of sync_state reads back as written; a key outside the type does not compile', async () => {
  const store = new SqliteStore(':memory:');
  const keys: SyncStateKey[] = ['url', 'user', 'self_remote', 'client', 'password_hash', 'was_url', 'was_self', 'was_user',
    'cursor', 'resync', 'scan_round', 'last_success_at', 'restore:g1'];
  await store.write(async (w) => { for (const k of keys) await setState(w, k, `v-${k}`); });
  const st = await state(store);
  expect(Object.fromEntries(st)).toEqual(Object.fromEntries(keys.map((k) => [k, `v-${k}`])));
  await store.write(async (w) => { await setState(w, 'cursor', null); });
  expect((await state(store)).has('cursor')).toBe(false);
  // @ts-expect-error a key nobody reads is not a key
  const misspelt: SyncStateKey = 'cursr';
  // @ts-expect-error nor a restore group without its prefix
  const bare: SyncStateKey = 'g1';
  expect([misspelt, bare]).toHaveLength(2);
  await store.close();
});

it('shadowBatches walks every shadow once, in keyset order across resources, a batch at a time (D346)', async () => {
  const store = new SqliteStore(':memory:');
  const want: string[] = [];
  await store.write(async (w) => {
    for (const res of ['comment', 'post', 'todoItem'] as const) {
      for (const id of [3, 1, 10, 2, 7]) { await putShadow(w, res, id, `p1/`, { id, _round: 'r1' }); want.push(`${res}:${id}`); }
    }
    await w.run("INSERT INTO sync_shadow (resource, remote_id, scope, record) VALUES ('~parked', 1, '', '{}')");
  });
  const batches: string[][] = [];
  for await (const rows of shadowBatches(store, 4)) batches.push(rows.map((r) => r.key));
  expect(batches.map((b) => b.length)).toEqual([4, 4, 4, 3]);
  expect(batches.flat()).toEqual([...want].sort((a, b) => a.split(':')[0].localeCompare(b.split(':')[0]) || Number(a.split(':')[1]) - Number(b.split(':')[1])));
  await store.close();
});
