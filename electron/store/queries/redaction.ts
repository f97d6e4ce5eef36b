// What a client may not see inside records it does see (D32): people and companies outside the firm
// and its own company (§5.3), private milestones (§5.2). Used by service/redact.ts.

import type { Caller, Queryable } from '../types.ts';

/** The companies a client sees (the firm and its own) and the people of those companies. */
export async function clientSees(db: Queryable, c: Caller): Promise<{ companies: Set<number>; people: Set<number> }> {
  const companies = new Set((await db.all<{ id: number }>('SELECT id FROM companies WHERE firm = 1 OR id = ?', [c.companyId])).map((r) => Number(r.id)));
  const people = new Set((await db.all<{ id: number }>(
    'SELECT pe.id FROM people pe JOIN companies co ON co.id = pe.company_id WHERE co.firm = 1 OR pe.company_id = ?', [c.companyId],
  )).map((r) => Number(r.id)));
  return { companies, people };
}

/** Which of these milestones are private. */
export async function privateMilestones(db: Queryable, ids: readonly number[]): Promise<Set<number>> {
  const out = new Set<number>();
  for (let k = 0; k < ids.length; k += 500) {
    const chunk = ids.slice(k, k + 500);
    for (const r of await db.all<{ id: number }>(`SELECT id FROM milestones WHERE private = 1 AND id IN (${chunk.map(() => '?').join(', ')})`, chunk)) out.add(Number(r.id));
  }
  return out;
}
