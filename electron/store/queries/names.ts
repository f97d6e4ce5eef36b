// Names of people and companies for the computed fields of other records (creator-name,
// completer-name, responsible-party-name, author-name, person-name). A correlated subquery per name
// and row cost ~110 µs for 50 todo items (three names each, D43); the names are instead read once
// into maps kept by the store under its change token (`store.memo`) and filled in here.
// Inside a write (`db` is a Writer) the maps are read afresh: the transaction may have changed them.

import { isStore, type Queryable, type Row } from '../types.ts';

export interface Names {
  readonly people: ReadonlyMap<number, string>;
  readonly companies: ReadonlyMap<number, string>;
  /** Every person as SQL's `COALESCE(first_name, '') || ' ' || COALESCE(last_name, '')` (a time entry's person-name). */
  readonly labels: ReadonlyMap<number, string>;
}

async function load(db: Queryable): Promise<Names> {
  const people = new Map<number, string>();
  const labels = new Map<number, string>();
  for (const r of await db.all<{ id: number; first_name: string | null; last_name: string | null }>('SELECT id, first_name, last_name FROM people')) {
    // as SQL's `first_name || ' ' || last_name`: nil when either part is nil
    if (r.first_name !== null && r.last_name !== null) people.set(Number(r.id), `${r.first_name} ${r.last_name}`);
    labels.set(Number(r.id), `${r.first_name ?? ''} ${r.last_name ?? ''}`);
  }
  const companies = new Map<number, string>();
  for (const r of await db.all<{ id: number; name: string | null }>('SELECT id, name FROM companies')) {
    if (r.name !== null) companies.set(Number(r.id), r.name);
  }
  return { people, companies, labels };
}


/** Every person's and company's name (the store's memo outside a write). */
export function names(db: Queryable): Promise<Names> {
  return isStore(db) ? db.memo('names', () => load(db), ['people', 'companies']) : load(db);
}

/** Full name of a person id (null when none, as the SQL subquery answered). */
export const personNameOf = (n: Names, id: unknown): string | null =>
  id === null || id === undefined ? null : n.people.get(Number(id)) ?? null;

/** Name of a responsible party (`responsible_party_type`/`_id` of the row). */
export function partyNameOf(n: Names, row: Row): string | null {
  const id = row.responsible_party_id;
  if (id === null || id === undefined) return null;
  if (row.responsible_party_type === 'Person') return n.people.get(Number(id)) ?? null;
  if (row.responsible_party_type === 'Company') return n.companies.get(Number(id)) ?? null;
  return null;
}

/**
 * Fill creator_name, completer_name and responsible_party_name of rows that carry creator_id,
 * completer_id and the responsible party (todo items, milestones).
 */
export async function withPartyNames<T extends Row>(db: Queryable, rows: T[]): Promise<T[]> {
  if (!rows.length) return rows;
  const n = await names(db);
  for (const r of rows) {
    (r as Row).completer_name = personNameOf(n, r.completer_id);
    (r as Row).creator_name = personNameOf(n, r.creator_id);
    (r as Row).responsible_party_name = partyNameOf(n, r);
  }
  return rows;
}

/** Fill author_name (posts, comments) from the name maps, as `first || ' ' || last` of a join gave it. */
export async function withAuthorNames<T extends Row>(db: Queryable, rows: T[]): Promise<T[]> {
  if (!rows.length) return rows;
  const n = await names(db);
  for (const r of rows) (r as Row).author_name = personNameOf(n, r.author_id);
  return rows;
}

/**
 * Fill person_name of time entries from the name maps, as the LEFT JOIN on people it replaces gave it
 * (`first last`, a part missing read as ''; ' ' without a person): 50 entries 122 -> 70 µs (D123).
 */
export async function withPersonLabels<T extends Row>(db: Queryable, rows: T[]): Promise<T[]> {
  if (!rows.length) return rows;
  const n = await names(db);
  for (const r of rows) (r as Row).person_name = n.labels.get(Number(r.person_id)) ?? ' ';
  return rows;
}
