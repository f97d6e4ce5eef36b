// The account as a whole: importing a `bivouac-seed/1` fixture (contract §9.2) into an empty
// store, and a full JSON backup (`bivouac-backup/1`: every table, every row) for export/import.

import { column, RESOURCES, TABLE_ORDER } from '../../shared/registry.ts';
import type { Row, Store } from '../store/types.ts';
import { hashPassword, newToken } from './auth.ts';
import { hasAccount } from '../store/queries/companies.ts';
import { addMember, rebuildFeed } from '../store/feed.ts';
import { dumpTable, restoreRow, setMeta } from '../store/queries/account.ts';

export class SeedError extends Error {}

type Obj = Record<string, unknown>;
const COMPANY_KEYS = ['name', 'address-one', 'address-two', 'city', 'state', 'zip', 'country', 'web-address', 'phone-number-office', 'phone-number-fax', 'time-zone-id', 'url-name'];
const PERSON_KEYS = ['first-name', 'last-name', 'email-address', 'user-name', 'title', 'avatar-url', 'im-handle', 'im-service',
  'phone-number-office', 'phone-number-office-ext', 'phone-number-mobile', 'phone-number-home', 'phone-number-fax', 'time-zone-name'];
const STATUSES = ['active', 'on_hold', 'archived'];
const START_PAGES = ['log', 'all', 'todos', 'milestones', 'posts'];

function req(o: Obj, k: string, where: string): string {
  const v = o[k];
  if (typeof v !== 'string' || v === '') throw new SeedError(`${where}: "${k}" is required (a non-empty string)`);
  return v;
}
function optStr(o: Obj, k: string, where: string): string | null {
  const v = o[k];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new SeedError(`${where}: "${k}" must be a string`);
  return v;
}
function explicitId(o: Obj, where: string, seen: Set<number>): number | undefined {
  if (o.id === undefined) return undefined;
  if (!Number.isSafeInteger(o.id) || (o.id as number) < 1) throw new SeedError(`${where}: "id" must be a positive integer`);
  if (seen.has(o.id as number)) throw new SeedError(`${where}: duplicate id ${o.id}`);
  seen.add(o.id as number);
  return o.id as number;
}
function list(data: Obj, k: string): Obj[] {
  const v = data[k] ?? [];
  if (!Array.isArray(v) || v.some((x) => !x || typeof x !== 'object')) throw new SeedError(`"${k}" must be an array of objects`);
  return v as Obj[];
}

/** Check a fixture completely before anything is written; throws SeedError with the reason. */
export function checkSeed(data: unknown): Obj {
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new SeedError('a fixture is a JSON object');
  const d = data as Obj;
  if (d.format !== 'bivouac-seed/1') throw new SeedError('"format" must be "bivouac-seed/1"');
  const companies = list(d, 'companies'), people = list(d, 'people'), projects = list(d, 'projects');
  const keys = { company: new Set<string>(), person: new Set<string>(), project: new Set<string>() };
  const ids = { company: new Set<number>(), person: new Set<number>(), project: new Set<number>() };
  let firms = 0;
  let firmKey = '';
  companies.forEach((c, i) => {
    const w = `companies[${i}]`;
    const key = req(c, 'key', w);
    if (keys.company.has(key)) throw new SeedError(`${w}: duplicate key "${key}"`);
    keys.company.add(key);
    req(c, 'name', w);
    for (const k of COMPANY_KEYS) optStr(c, k, w);
    explicitId(c, w, ids.company);
    if (c.firm === true) { firms++; firmKey = key; }
  });
  if (firms !== 1) throw new SeedError(`exactly one company must have "firm": true (found ${firms})`);
  const userNames = new Set<string>(), tokens = new Set<string>();
  people.forEach((p, i) => {
    const w = `people[${i}]`;
    const key = req(p, 'key', w);
    if (keys.person.has(key)) throw new SeedError(`${w}: duplicate key "${key}"`);
    keys.person.add(key);
    const company = req(p, 'company', w);
    if (!keys.company.has(company)) throw new SeedError(`${w}: unknown company "${company}"`);
    for (const k of ['first-name', 'last-name', 'email-address', 'user-name']) req(p, k, w);
    for (const k of PERSON_KEYS) optStr(p, k, w);
    const un = p['user-name'] as string;
    if (userNames.has(un)) throw new SeedError(`${w}: duplicate user-name "${un}"`);
    userNames.add(un);
    if (p.password !== undefined && typeof p.password !== 'string') throw new SeedError(`${w}: "password" must be a string`);
    if (typeof p.password === 'string' && p.password.includes('\0')) throw new SeedError(`${w}: "password" must not contain a NUL character`);
    if (p.token !== undefined) {
      if (typeof p.token !== 'string' || p.token === '') throw new SeedError(`${w}: "token" must be a non-empty string`);
      if (tokens.has(p.token)) throw new SeedError(`${w}: duplicate token`);
      tokens.add(p.token);
    }
    if (p.administrator !== undefined && typeof p.administrator !== 'boolean') throw new SeedError(`${w}: "administrator" must be a boolean`);
    if (p.administrator === true && company !== firmKey) throw new SeedError(`${w}: only people of the firm can be administrators`);
    explicitId(p, w, ids.person);
  });
  projects.forEach((p, i) => {
    const w = `projects[${i}]`;
    const key = req(p, 'key', w);
    if (keys.project.has(key)) throw new SeedError(`${w}: duplicate key "${key}"`);
    keys.project.add(key);
    req(p, 'name', w);
    if (p.company !== undefined && !keys.company.has(p.company as string)) throw new SeedError(`${w}: unknown company "${String(p.company)}"`);
    if (p.status !== undefined && !STATUSES.includes(p.status as string)) throw new SeedError(`${w}: "status" must be one of ${STATUSES.join(', ')}`);
    if (p['start-page'] !== undefined && !START_PAGES.includes(p['start-page'] as string)) throw new SeedError(`${w}: bad "start-page"`);
    for (const k of ['show-writeboards', 'show-announcement']) if (p[k] !== undefined && typeof p[k] !== 'boolean') throw new SeedError(`${w}: "${k}" must be a boolean`);
    optStr(p, 'announcement', w);
    const members = p.members ?? [];
    if (!Array.isArray(members)) throw new SeedError(`${w}: "members" must be an array of person keys`);
    for (const m of members) if (!keys.person.has(m as string)) throw new SeedError(`${w}: unknown member "${String(m)}"`);
    explicitId(p, w, ids.project);
  });
  return d;
}

const pick = (o: Obj, keys: readonly string[]): Row => {
  const r: Row = {};
  for (const k of keys) if (o[k] !== undefined) r[column(k)] = o[k];
  return r;
};

/**
 * Import a checked fixture into an empty store, in one transaction. With `ifEmpty`, a store that
 * holds an account already is left alone (checked inside the transaction: two team-server
 * processes starting together on one database import it once) and false is returned.
 */
export async function importSeed(store: Store, raw: unknown, opts: { ifEmpty?: boolean } = {}): Promise<boolean> {
  const d = checkSeed(raw);
  const companies = list(d, 'companies'), people = list(d, 'people'), projects = list(d, 'projects');
  // Hash passwords before the transaction: it must await only the writer.
  const hashes = await Promise.all(people.map((p) => (typeof p.password === 'string' ? hashPassword(p.password) : null)));
  return store.write(async (w) => {
    if (opts.ifEmpty && await hasAccount(w)) return false;
    const company = new Map<string, number>(), person = new Map<string, number>();
    for (const c of companies) {
      const id = await w.insert('companies', { ...(c.id ? { id: c.id } : {}), ...pick(c, COMPANY_KEYS), firm: c.firm === true ? 1 : 0 });
      company.set(c.key as string, id);
    }
    for (const [i, p] of people.entries()) {
      const id = await w.insert('people', {
        ...(p.id ? { id: p.id } : {}), ...pick(p, PERSON_KEYS),
        title: p.title ?? '', 'time_zone_name': p['time-zone-name'] ?? 'UTC',
        company_id: company.get(p.company as string), administrator: p.administrator === true ? 1 : 0,
        token: p.token ?? newToken(), password_hash: hashes[i], created_at: w.now, updated_at: w.now,
      });
      person.set(p.key as string, id);
    }
    const firm = companies.find((c) => c.firm === true)!.key as string;
    for (const p of projects) {
      const id = await w.insert('projects', {
        ...(p.id ? { id: p.id } : {}), name: p.name, status: p.status ?? 'active',
        company_id: company.get((p.company as string) ?? firm), announcement: p.announcement ?? null,
        start_page: p['start-page'] ?? 'log', show_writeboards: p['show-writeboards'] === true ? 1 : 0,
        show_announcement: p['show-announcement'] === true ? 1 : 0, created_on: w.now.slice(0, 10), last_changed_on: w.now,
      });
      for (const m of new Set((p.members as string[] | undefined) ?? [])) {
        await addMember(w, id, person.get(m)!);
      }
    }
    const account = (d.account as Obj | undefined)?.name;
    if (typeof account === 'string') await setMeta(w, 'account_name', account);
    return true;
  });
}

const BACKUP_TABLES = [...TABLE_ORDER.map((k) => RESOURCES[k].table), 'project_members', 'meta'];

/** The whole account as JSON: every row of every table (passwords stay hashed). */
export async function exportAccount(store: Store): Promise<Obj> {
  const tables: Record<string, Row[]> = {};
  for (const t of BACKUP_TABLES) tables[t] = await dumpTable(store, t);
  return { format: 'bivouac-backup/1', exportedAt: new Date().toISOString(), tables };
}

/** Restore a backup into an empty store, in one transaction. */
export async function importBackup(store: Store, data: Obj): Promise<void> {
  if (data.format !== 'bivouac-backup/1' || !data.tables || typeof data.tables !== 'object') throw new SeedError('not a bivouac-backup/1 file');
  if (!(await store.isEmpty())) throw new SeedError('the data directory already holds an account');
  const tables = data.tables as Record<string, Row[]>;
  await store.write(async (w) => {
    for (const t of BACKUP_TABLES) {
      for (const row of tables[t] ?? []) await restoreRow(w, t, row);
    }
    await rebuildFeed(w); // the rows were written directly: the feed starts again from them
  });
}
