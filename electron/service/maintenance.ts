// Housekeeping of the team server, run at start and then hourly by server.ts: feed retention
// (tombstones older than N days; cursors before them answer 410), idempotency keys older than
// N days (at least 30), and drained brute-force / rate counters.

import type { Store } from '../store/types.ts';
import { purgeTombstones } from '../store/feed.ts';
import { purgeCounters } from '../store/queries/sync.ts';
import { purgeNotices } from '../store/queries/notices.ts';
import { purge as purgeKeys } from './idempotency.ts';
import { isoSeconds } from '../../shared/values.ts';

export const DEFAULT_TOMBSTONE_DAYS = 90;
export const DEFAULT_IDEMPOTENCY_DAYS = 30;
const DAY = 86_400_000;

export interface Retention { readonly tombstoneDays?: number; readonly idempotencyDays?: number }

export async function maintain(store: Store, r: Retention = {}, now = new Date()): Promise<{ tombstones: number; keys: number }> {
  const before = isoSeconds(new Date(now.getTime() - (r.tombstoneDays ?? DEFAULT_TOMBSTONE_DAYS) * DAY));
  const tombstones = await store.write((w) => purgeTombstones(w, before));
  // Conflict notices are kept as long as the tombstones they are about (D328).
  await purgeNotices(store, before);
  const keys = await purgeKeys(store, r.idempotencyDays ?? DEFAULT_IDEMPOTENCY_DAYS, now);
  await purgeCounters(store, now.getTime(), now.getTime() - 30 * DAY);
  return { tombstones, keys };
}
