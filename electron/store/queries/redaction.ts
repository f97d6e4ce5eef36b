// What a client may not see inside records it does see (D32): people and companies outside the firm
// and its own company (§5.3), private milestones (§5.2). Used by service/redact.ts.
// Both are kept by the store under the tables they come from (`store.memo`, D42/D44): a client's
// request read them with two or three statements each time (D195). Inside a write (`db` is a Writer)
// they are read afresh. The sets are shared between requests: callers only read them.

import { isStore, type Caller, type Queryable } from '../types.ts';


export interface ClientSees {
  readonly companies: ReadonlySet<number>;
  readonly people: ReadonlySet<number>;
}

async function loadSees(db: Queryable, companyId: number): Promise<ClientSees> {
  const companies = new Set((await db.all<{ id: number }>('SELECT id FROM companies WHERE firm = 1 OR id = ?', [companyId])).map((r) => Number(r.id)));
  const people = new Set((await db.all<{ id: number }>(
    'SELECT pe.id FROM people pe JOIN companies co ON co.id = pe.company_id WHERE co.firm = 1 OR pe.company_id = ?', [companyId],
  )).map((r) => Number(r.id)));
  return { companies, people };
}

/** The companies a client sees (the firm and its own) and the people of those companies. */
export function clientSees(db: Queryable, c: Caller): Promise<ClientSees> {
  return isStore(db) ? db.memo(`client.sees:${c.companyId}`, () => loadSees(db, c.companyId), ['people', 'companies']) : loadSees(db, c.companyId);
}

async function loadPrivate(db: Queryable, ids?: readonly number[]): Promise<Set<number>> {
  if (!ids) return new Set((await db.all<{ id: number }>('SELECT id FROM milestones WHERE private = 1')).map((r) => Number(r.id)));
  const out = new Set<number>();
  for (let k = 0; k < ids.length; k += 500) {
    const chunk = ids.slice(k, k + 500);
    for (const r of await db.all<{ id: number }>(`SELECT id FROM milestones WHERE private = 1 AND id IN (${chunk.map(() => '?').join(', ')})`, chunk)) out.add(Number(r.id));
  }
  return out;
}

/** Which of these milestones are private (outside a write: of the store's set of every private milestone). */
export async function privateMilestones(db: Queryable, ids: readonly number[]): Promise<ReadonlySet<number>> {
  if (!isStore(db)) return loadPrivate(db, ids);
  return db.memo('milestones.private', () => loadPrivate(db), ['milestones']);
}
