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
