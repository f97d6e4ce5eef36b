// Adopting local work on connect (issue #8, D150): a data directory that holds work not linked to
// the remote (a standalone directory, or a replica of ANOTHER remote) is matched to what the remote
// person can see, checked in full, and only then pushed up as creates. Pure: the engine reads both
// sides beforehand and writes the id map and the outbox afterwards (electron/sync/connect.ts).
//
// Rules (all decided before anything changes; any block refuses the whole connect):
//  - the local owner ("me") -> the remote person connecting: the local person who asked (the UI /
//    API caller: they keep their session), else the one with the same user name, else the same
//    e-mail, else the only local administrator (the command line on a one-person directory);
//  - other people by e-mail, then user name, then full name when it is unique on both sides; each
//    remote person is taken at most once;
//  - companies by name (the others stay local records: companies are never created remotely);
//  - projects by exact name among the projects the person can see (two remote projects of that
//    name block: ambiguous); a local project with no match is created when the remote allows it (a
//    Bivouac team server, and the person is an administrator there), else it blocks;
//  - categories of a matched project by name and type (not created twice);
//  - time entries: their person must be matched and a member of the target remote project (a created
//    project has only its creator as member), else they block (a time entry cannot change hands);
//  - other references to unmatched people or companies (responsible parties) are cleared on push.

import type { WireRow } from './wire.ts';

export interface LocalSide {
  readonly companies: readonly WireRow[];
  readonly people: readonly WireRow[];
  readonly projects: readonly WireRow[];
  /** The local person who asked to connect (null: the command line). */
  readonly caller: number | null;
}

export interface RemoteSide {
  readonly me: WireRow;
  readonly companies: readonly WireRow[];
  readonly people: readonly WireRow[];
  readonly projects: readonly WireRow[];
  /** Can this person create projects there (a team server, as an administrator)? */
  readonly canCreateProjects: boolean;
}

export interface Matching {
  readonly companies: Map<number, number>;
  readonly people: Map<number, number>;
  readonly projects: Map<number, number>;
  /** Local projects to create on the remote. */
  readonly create: number[];
  /** The local person who becomes the remote person (null: none here). */
  readonly me: number | null;
  /** What makes the connect impossible (empty: it can go ahead). */
  readonly blocks: string[];
}

const norm = (v: unknown): string => (typeof v === 'string' ? v.trim().toLowerCase() : '');
const fullName = (p: WireRow): string => norm(`${p.first_name ?? ''} ${p.last_name ?? ''}`);

/** Match local people, companies and projects to the remote's. */
export function matchAccount(local: LocalSide, remote: RemoteSide): Matching {
  const blocks: string[] = [];
  // Companies.
  const companies = new Map<number, number>();
  const takenC = new Set<number>();
  for (const c of local.companies) {
    const hit = remote.companies.find((r) => !takenC.has(Number(r.id)) && norm(r.name) !== '' && norm(r.name) === norm(c.name));
    if (hit) { companies.set(Number(c.id), Number(hit.id)); takenC.add(Number(hit.id)); }
  }
  // People: me first.
  const people = new Map<number, number>();
  const takenP = new Set<number>();
  const meRemote = Number(remote.me.id);
  const byUser = (name: unknown) => (norm(name) ? local.people.find((p) => norm(p.user_name) === norm(name)) : undefined);
  const byMail = (mail: unknown) => (norm(mail) ? local.people.find((p) => norm(p.email_address) === norm(mail)) : undefined);
  const admins = local.people.filter((p) => Number(p.administrator) === 1);
  const meLocal = (local.caller !== null ? local.people.find((p) => Number(p.id) === local.caller) : undefined)
    ?? byUser(remote.me.user_name) ?? byMail(remote.me.email_address) ?? (admins.length === 1 ? admins[0] : undefined);
  if (meLocal) { people.set(Number(meLocal.id), meRemote); takenP.add(meRemote); }
  const remotePeople = remote.people.filter((r) => Number(r.id) !== meRemote);
  const unique = (rows: readonly WireRow[], name: string) => rows.filter((r) => fullName(r) === name).length === 1;
  for (const p of local.people) {
    if (people.has(Number(p.id))) continue;
    const free = remotePeople.filter((r) => !takenP.has(Number(r.id)));
    const hit = (norm(p.email_address) ? free.find((r) => norm(r.email_address) === norm(p.email_address)) : undefined)
      ?? (norm(p.user_name) ? free.find((r) => norm(r.user_name) === norm(p.user_name)) : undefined)
      ?? (fullName(p) && unique(local.people, fullName(p)) && unique(remotePeople, fullName(p)) ? free.find((r) => fullName(r) === fullName(p)) : undefined);
    if (hit) { people.set(Number(p.id), Number(hit.id)); takenP.add(Number(hit.id)); }
  }
  // Projects by exact name.
  const projects = new Map<number, number>();
  const create: number[] = [];
  const localNames = new Map<string, number>();
  for (const p of local.projects) localNames.set(String(p.name), (localNames.get(String(p.name)) ?? 0) + 1);
  const uncreatable: string[] = [];
  for (const p of local.projects) {
    const name = String(p.name);
    const hits = remote.projects.filter((r) => String(r.name) === name);
    if (hits.length > 1) blocks.push(`project "${name}": ${hits.length} projects of that name on the remote (rename one)`);
    else if (hits.length === 1 && (localNames.get(name) ?? 0) > 1) blocks.push(`project "${name}": ${localNames.get(name)} local projects of that name (rename one)`);
    else if (hits.length === 1) projects.set(Number(p.id), Number(hits[0].id));
    else if (remote.canCreateProjects) create.push(Number(p.id));
    else uncreatable.push(`"${name}"`);
  }
  if (uncreatable.length) {
    const one = uncreatable.length === 1;
    blocks.push(`${one ? 'project' : 'projects'} ${uncreatable.join(', ')}: not on the remote, and this remote cannot create projects for you (a plain server has no project-create route; on a Bivouac team server only administrators create projects): rename ${one ? 'it' : 'each'} here to the name of a project you see there, or delete ${one ? 'it' : 'them'} here`);
  }
  return { companies, people, projects, create, me: meLocal ? Number(meLocal.id) : null, blocks };
}

/** Categories of matched projects: by name and type (remote categories by REMOTE project id). */
export function matchCategories(local: readonly WireRow[], projects: ReadonlyMap<number, number>, remote: ReadonlyMap<number, readonly WireRow[]>): Map<number, number> {
  const out = new Map<number, number>();
  const taken = new Set<number>();
  for (const c of local) {
    const P = projects.get(Number(c.project_id));
    if (P === undefined) continue;
    const hit = (remote.get(P) ?? []).find((r) => !taken.has(Number(r.id)) && r.name === c.name && r.type === c.type);
    if (hit) { out.set(Number(c.id), Number(hit.id)); taken.add(Number(hit.id)); }
  }
  return out;
}

/**
 * Time entries that cannot be pushed: their person is not matched, or not a member of the remote
 * project they would go to (members by REMOTE project id; a created project: only the remote me).
 */
export function blockedTime(entries: readonly WireRow[], m: Matching, meRemote: number, members: ReadonlyMap<number, ReadonlySet<number>>,
  personName: (local: number) => string, projectName: (local: number) => string): string[] {
  const bad = new Map<string, number>();
  for (const e of entries) {
    const who = Number(e.person_id);
    const rp = m.people.get(who);
    const P = Number(e.project_id);
    const remoteP = m.projects.get(P);
    let why: string | null = null;
    if (rp === undefined) why = `${personName(who)} has no match on the remote`;
    else if (remoteP !== undefined && !(members.get(remoteP)?.has(rp))) why = `${personName(who)} is not a member of "${projectName(P)}" on the remote`;
    else if (remoteP === undefined && m.create.includes(P) && rp !== meRemote) why = `${personName(who)} would not be a member of "${projectName(P)}" once created`;
    if (why) bad.set(why, (bad.get(why) ?? 0) + 1);
  }
  return [...bad].map(([why, n]) => `${n} time ${n === 1 ? 'entry' : 'entries'}: ${why}`);
}
