// Idempotency keys (docs/sync-protocol.md, after the IETF httpapi idempotency-key draft): the
// first request with a key claims it in the database; its response is stored when it is sent;
// a retry with the same key and the same request gets the stored response, another request 422,
// a retry while the first still runs 409. Stored in the database, so it holds across restarts
// and across processes. A claim whose process died is taken over after a lease.

import type { Store } from '../store/types.ts';
import { claimKey, purgeKeys, readKey, releaseKey, storeResponse, takeOverKey, type IdemRow } from '../store/queries/sync.ts';
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

/** Store the response of a claimed key (4xx included); a 5xx releases the key so that a retry executes. */
export async function finish(store: Store, personId: number, key: string, status: number,
  location: string | null, contentType: string | null, body: string): Promise<void> {
  if (status >= 500) await releaseKey(store, personId, key);
  else await storeResponse(store, personId, key, status, location, contentType, body);
}

/** Keys older than `days` days are forgotten (at least 30: an offline client may retry late). */
export function purge(store: Store, days: number, now = new Date()): Promise<number> {
  return purgeKeys(store, isoSeconds(new Date(now.getTime() - Math.max(30, days) * 86_400_000)));
}
