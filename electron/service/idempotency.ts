// Idempotency keys (docs/sync-protocol.md, after the IETF httpapi idempotency-key draft): the
// first request with a key claims it in the database; its response is stored when it is sent;
// a retry with the same key and the same request gets the stored response, another request 422,
// a retry while the first still runs 409. Stored in the database, so it holds across restarts
// and across processes. A claim whose process died is taken over after a lease.
// Kept only for requests that changed something (D244): a read, or a write that failed without a
// change, releases its key. What one person keeps is capped (count and bytes): over the cap, that
// person's oldest answered keys are forgotten first.

import type { Queryable, Store } from '../store/types.ts';
import { claimKey, dropKeys, keyBytes, keyUsage, oldestKeys, overCap, purgeKeys, readKey, releaseKey, storeResponse, takeOverKey, type IdemRow } from '../store/queries/sync.ts';
import { isoSeconds } from '../../shared/values.ts';

export type Claim =
  | { readonly kind: 'run' }
  | { readonly kind: 'replay'; readonly stored: IdemRow }
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'running' };

/** 1..255 visible ASCII characters. */
export const validKey = (k: string): boolean => /^[\x21-\x7e]{1,255}$/.test(k);

/** Longer than any request may run (the request timeout is 30 s): a claim older than this was abandoned. */
export const LEASE_MS = 120_000;

export async function claim(store: Store, personId: number, key: string, fingerprint: string, now = new Date()): Promise<Claim> {
  const ms = now.getTime();
  if (await claimKey(store, personId, key, fingerprint, ms, isoSeconds(now))) return { kind: 'run' };
  const row = await readKey(store, personId, key);
  if (!row) return claim(store, personId, key, fingerprint, now); // removed in between (a 5xx): claim again
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.state === 'done') return { kind: 'replay', stored: row };
  if (await takeOverKey(store, personId, key, fingerprint, ms - LEASE_MS, ms)) return { kind: 'run' };
  return { kind: 'running' };
}

/**
 * What a key says before its request runs (D340), read without writing: `new` (no row: the request
 * runs, and claims the key in the transaction of its first write, `claimIn`), a replay, a mismatch, a
 * claim still running (409), or `run` for a claim abandoned past its lease and taken over here.
 */
export async function check(store: Store, personId: number, key: string, fingerprint: string, now = new Date()): Promise<Claim | { readonly kind: 'new' }> {
  const row = await readKey(store, personId, key);
  if (!row) return { kind: 'new' };
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.state === 'done') return { kind: 'replay', stored: row };
  if (await takeOverKey(store, personId, key, fingerprint, now.getTime() - LEASE_MS, now.getTime())) return { kind: 'run' };
  return { kind: 'running' };
}

/**
 * Claim a key checked `new` inside a write transaction (the request's own, D340): it commits with the
 * write, or rolls back with it. False when another request claimed it since the check (the caller
 * answers 409 and its write rolls back).
 */
export function claimIn(w: Queryable, personId: number, key: string, fingerprint: string, now = new Date()): Promise<boolean> {
  return claimKey(w, personId, key, fingerprint, now.getTime(), isoSeconds(now));
}

/** A request's fingerprint: SHA-256 in base64 (http/idempotency.ts). */
const FINGERPRINT_BYTES = 44;

/** What one person's stored keys may hold (D244). */
export interface KeyCap { readonly keys: number; readonly bytes: number }
/** 10,000 keys, 16 MiB: far above what a replica has in flight, far below a disk. */
export const DEFAULT_CAP: KeyCap = { keys: 10_000, bytes: 16 * 1024 * 1024 };

/**
 * Store the response of a claimed key when the request changed something (`changed`: it committed a
 * write), then keep the person under the cap. A request that changed nothing (a read, a refusal, a
 * validation error) and a 5xx release the key: a retry executes again, which is harmless when the
 * first changed nothing, and what a 5xx needs.
 */
export async function finish(store: Store, personId: number, key: string, status: number,
  location: string | null, contentType: string | null, body: string, changed = true, cap: KeyCap = DEFAULT_CAP, claimed = true,
  usage?: UsageEstimates): Promise<void> {
  if (status >= 500 || !changed || !claimed) {
    // A key claimed in a write transaction that rolled back, or never claimed (D340): nothing to release.
    if (claimed) await releaseKey(store, personId, key);
    return;
  }
  const bytes = keyBytes(key, location, contentType, body) + FINGERPRINT_BYTES;
  await storeResponse(store, personId, key, status, location, contentType, body, bytes);
  // Under the cap by this process's own count since the last read: no read of the usage (D340).
  const known = usage ?? new Map<number, Estimate>();
  const e = known.get(personId);
  if (e && e.left > 0 && e.keys + 1 <= cap.keys && e.bytes + bytes <= cap.bytes) {
    e.keys++;
    e.bytes += bytes;
    e.left--;
    return;
  }
  const { use } = await trimmed(store, personId, cap, key);
  if (known.size >= 10_000) known.clear();
  known.set(personId, { ...use, left: USAGE_READ_EVERY });
}

/**
 * A person's key usage as last read, plus the answers this process stored since (each counted whole, so
 * never under what this process added), and how many more it may store before reading it again (D340).
 * Other processes' answers show at the next read: a person may go over the cap by at most that many
 * answers per process until then (the cap is a bound on the disk, and the purge trims too).
 */
interface Estimate { keys: number; bytes: number; left: number }
const USAGE_READ_EVERY = 64;
/** Per person, the estimate of their key usage: one map per server (per store), owned by its idempotency hook; without one, every answer reads the usage. */
export type UsageEstimates = Map<number, Estimate>;

/**
 * Forget a person's oldest answered keys until what they hold is within the cap (never `keep`, the key
 * just stored, nor a key whose request still runs). Several processes may trim at once: each deletes
 * rows that exist, and the usage counts follow the rows (triggers), so at worst a key more goes.
 */
export async function trim(store: Store, personId: number, cap: KeyCap, keep = ''): Promise<number> {
  return (await trimmed(store, personId, cap, keep)).dropped;
}

/** `trim`, with what the person's keys hold afterwards. */
async function trimmed(store: Store, personId: number, cap: KeyCap, keep = ''): Promise<{ dropped: number; use: { keys: number; bytes: number } }> {
  let dropped = 0;
  for (;;) {
    const use = await keyUsage(store, personId);
    let keys = use.keys - cap.keys, bytes = use.bytes - cap.bytes;
    if (keys <= 0 && bytes <= 0) return { dropped, use };
    const batch: string[] = [];
    for (const r of await oldestKeys(store, personId, keep, Math.min(500, Math.max(keys, 1) + 50))) {
      if (keys <= 0 && bytes <= 0) break;
      batch.push(r.idem_key);
      keys--;
      bytes -= Number(r.bytes);
    }
    if (!batch.length) return { dropped, use }; // nothing answered left to forget (running claims only)
    dropped += await dropKeys(store, personId, batch);
  }
}

/**
 * Keys older than `days` days are forgotten (at least 30: an offline client may retry late), and
 * people over the cap are brought under it (keys stored before the cap existed, or a smaller cap).
 */
export async function purge(store: Store, days: number, now = new Date(), cap: KeyCap = DEFAULT_CAP): Promise<number> {
  let n = await purgeKeys(store, isoSeconds(new Date(now.getTime() - Math.max(30, days) * 86_400_000)));
  for (const person of await overCap(store, cap.keys, cap.bytes)) n += await trim(store, person, cap);
  return n;
}
