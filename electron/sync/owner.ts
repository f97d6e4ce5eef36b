// Who owns a data directory: on a replica, the remote person it was cloned as (issue #8);
// disconnected, still that person (D151); standalone, null (the account's administrators).

import * as q from '../store/queries/replica.ts';
import type { Queryable } from '../store/types.ts';

export async function ownerId(db: Queryable): Promise<number | null> {
  // A disconnected replica still belongs to its person (D151): they may connect it again.
  const self = (await q.selfRemoteId(db)) ?? (await q.formerSelfRemoteId(db));
  if (self === null) return null;
  return (await q.localIdOf(db, 'person', self)) ?? null;
}

const LOOPBACK = /^(localhost|::1|\[::1\]|127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * Why a server serves a network, or null for the local service of one person (D254): a server that
 * listens beyond loopback, runs behind a reverse proxy, keeps its data in PostgreSQL, or answers
 * requests for other names (--allow-host) is a team server, and a team server never becomes a replica.
 */
export function servesNetwork(o: { host?: string | null; trustProxy?: boolean | string | null; storeUrl?: string | null; allowedHosts?: readonly string[] | null }): string | null {
  if (o.storeUrl) return 'it keeps its data in PostgreSQL (--store)';
  if (o.trustProxy) return 'it runs behind a reverse proxy (--trust-proxy)';
  if (o.host && !LOOPBACK.test(o.host)) return `it listens on ${o.host}, beyond this machine (--host)`;
  // Reached under other names (a proxy that does not forward, a tunnel): others can reach it.
  if (o.allowedHosts?.length) return `it answers requests for ${o.allowedHosts.join(', ')} (--allow-host)`;
  return null;
}
