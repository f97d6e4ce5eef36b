// Administration (docs/api-extensions.md E2–E6, D273–D277): people, companies, project members and
// invitations. Operations take typed inputs (decoded in http/admin-input.ts) and never return or log a
// password or its hash: answers are the public records, read back through the directory.

import { createHash, randomBytes } from 'node:crypto';
import { isoSeconds } from '../../shared/values.ts';
import { addMember, removeMember } from '../store/feed.ts';
import {
  companyIsFirm, companyNameTaken, deactivatedIds, dropInvitations, insertInvitation, personFacts, takeInvitation, takenBy,
} from '../store/queries/admin.ts';
import type { Row, Store } from '../store/types.ts';
import { ApiError, check, forbidden, notFound, type Caller, type Ctx } from './context.ts';
import { authPersonById, firmAdminIds } from '../store/queries/people.ts';
import { state as syncState, type SyncStateKey } from '../store/queries/replica.ts';
import * as directory from './directory.ts';
import * as projects from './projects.ts';
import { hashPassword, newToken } from './auth.ts';
import { administrationOf, type Administration, type PersonFields } from '../../shared/sync/intents/admin.ts';

export interface PersonInput {
  readonly firstName?: string; readonly lastName?: string; readonly userName?: string; readonly emailAddress?: string;
  readonly companyId?: number; readonly administrator?: boolean; readonly password?: string; readonly title?: string;
}
export interface CompanyInput { readonly name?: string; readonly canSeePrivate?: boolean }
export interface Invitation { readonly token: string; readonly personId: number; readonly expiresAt: string }

/** How long an invitation stays usable (D275). */
export const INVITATION_DAYS = 7;
const MAX = 255;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

const adminOnly = (ctx: Ctx, what: string): void => { if (!ctx.caller.admin) throw forbidden(`Only administrators can ${what}`); };
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** The password policy (D274): at least 8 characters, not the user name, no NUL. Messages name no value. */
export function passwordProblems(password: string, userName: string | undefined): string[] {
  const out: string[] = [];
  if ([...password].length < 8) out.push('Password is too short (minimum is 8 characters)');
  if (userName !== undefined && password.toLowerCase() === userName.toLowerCase()) out.push('Password cannot be the user name');
  if (password.includes('\0')) out.push('Password cannot contain a NUL character');
  return out;
}

function text(errors: string[], label: string, v: string | undefined, required: boolean): string | undefined {
  if (v === undefined) { if (required) errors.push(`${label} can't be blank`); return undefined; }
  const t = v.trim();
  if (!t) errors.push(`${label} can't be blank`);
  else if ([...t].length > MAX) errors.push(`${label} is too long (maximum is ${MAX} characters)`);
  return t;
}

async function checkPerson(ctx: Ctx, input: PersonInput, create: boolean, id = 0, currentUser?: string): Promise<{ values: Row; errors: string[] }> {
  const errors: string[] = [];
  const values: Row = {};
  const set = (col: string, v: unknown) => { if (v !== undefined) values[col] = v; };
  set('first_name', text(errors, 'First name', input.firstName, create));
  set('last_name', text(errors, 'Last name', input.lastName, create));
  const userName = text(errors, 'User name', input.userName, create);
  if (userName !== undefined && /[\s:]/.test(userName)) errors.push('User name cannot contain spaces or a colon');
  set('user_name', userName);
  const email = text(errors, 'Email address', input.emailAddress, create);
  if (email && !EMAIL.test(email)) errors.push('Email address is invalid');
  set('email_address', email);
  if (input.title !== undefined) set('title', input.title.trim());
  const taken = await takenBy(ctx.store, userName || undefined, email || undefined, id);
  if (taken.userName) errors.push('User name has already been taken');
  if (taken.email) errors.push('Email address has already been taken');
  let firm: boolean | undefined;
  if (input.companyId !== undefined) {
    firm = await companyIsFirm(ctx.store, input.companyId);
    if (firm === undefined) errors.push('Company is invalid');
    else values.company_id = input.companyId;
  } else if (create) errors.push("Company can't be blank");
  if (input.administrator !== undefined) {
    if (input.administrator && firm === false) errors.push('Only people of the firm can be administrators');
    values.administrator = input.administrator ? 1 : 0;
  }
  if (input.password !== undefined) errors.push(...passwordProblems(input.password, userName ?? currentUser));
  return { values, errors };
}

/** The team server this store is a copy of (a replica, connected or not), or null. */
export async function replicaOf(store: Store): Promise<string | null> {
  const st = await syncState(store);
  return st.get('url') ?? st.get('was_url') ?? null;
}

/** Where this store's administration is done (D338): here, here and queued for the team server, or elsewhere. */
export async function administration(store: Store): Promise<Administration> {
  const st = await syncState(store);
  return administrationOf((k) => st.get(k as SyncStateKey));
}

/**
 * A replica's people, companies and memberships are the team server's (D332, D338). On a replica of a team
 * server that takes administration (its capabilities say `admin`), an administrator's change is applied here at
 * once and queued as an intent for the next sync: true. Anywhere else a replica refuses at once, never queues to
 * fail later: a plain server has no administration routes, an older team server or a disconnected replica is
 * administered on the team server. Called after the caller's rights are checked (403 first, as on the team server).
 */
async function queued(store: Store): Promise<boolean> {
  const a = await administration(store);
  if (a.mode === 'elsewhere') throw new ApiError(409, [a.message]);
  if (a.mode === 'here') return false;
  // The command line opens a replica's data without its sync: what it queued would wait for the app unseen.
  if (!store.recordOutbox) throw new ApiError(409, [`This is a copy of the team server at ${a.at}, not syncing now: make the change in the app (it goes up with the next sync) or on the team server`]);
  return true;
}

const refuseOnReplica = async (store: Store): Promise<void> => {
  const a = await administration(store);
  if (a.mode !== 'here') throw new ApiError(409, [a.mode === 'elsewhere' ? a.message : `This is a copy of the team server at ${a.at}: invitations and the list of deactivated people are on the team server`]);
};

/** The fields given, as an intent keeps them (the password too: only there, until pushed, D339). */
const fields = (i: PersonInput): PersonFields => JSON.parse(JSON.stringify(i)) as PersonFields;

/** `POST /people.xml`: a person who can sign in at once (with a password) or after an invitation. */
export async function createPerson(ctx: Ctx, input: PersonInput): Promise<Row> {
  adminOnly(ctx, 'add people');
  const q = await queued(ctx.store);
  const { values, errors } = await checkPerson(ctx, input, true);
  check(errors);
  // Queued (D339): no hash here (the replica's copy of a person never signs in to it); the password goes up in
  // the intent only, and the team server hashes it.
  const hash = input.password !== undefined && !q ? await hashPassword(input.password) : null;
  const id = await ctx.store.write(async (w) => {
    // Checked again inside the transaction: two concurrent creates cannot both take a name (the unique index
    // on user_name is the last word, D274).
    const again = await takenBy(w, values.user_name as string, values.email_address as string);
    if (again.userName || again.email) throw new ApiError(422, [again.userName ? 'User name has already been taken' : 'Email address has already been taken']);
    const pid = await w.insert('people', {
      title: '', time_zone_name: 'UTC', administrator: 0, ...values,
      token: newToken(), password_hash: hash, active: 1, created_at: w.now, updated_at: w.now,
    });
    if (q) w.outbox?.intent('person.create', { id: pid, person: fields(input) });
    return pid;
  });
  return directory.person(ctx, id);
}

/** `PUT /people/{id}.xml`: administrators change anything; a person may change their own password only. */
export async function updatePerson(ctx: Ctx, id: number, input: PersonInput): Promise<Row> {
  // Others get 403 whatever the id: they learn nothing of people they cannot see.
  if (!ctx.caller.admin && ctx.caller.id !== id) throw forbidden('Only administrators can change other people');
  // A replica's own sign-in is the desktop app's (its password is set there): a non-administrator changes theirs on the team server.
  const q = ctx.caller.admin ? await queued(ctx.store) : (await refuseOnReplica(ctx.store), false);
  const facts = await personFacts(ctx.store, id);
  if (!facts) throw notFound('Person');
  if (!ctx.caller.admin) {
    const others = Object.entries(input).filter(([k, v]) => v !== undefined && k !== 'password');
    if (others.length) throw forbidden('Only administrators can change people: you can change your own password');
  }
  if (facts.active !== 1) throw new ApiError(422, ['This person is deactivated']);
  const { values, errors } = await checkPerson(ctx, input, false, id, String(facts.user_name));
  // The result must hold: an administrator is of the firm (moving one to a client company needs administrator false).
  const adminAfter = input.administrator ?? Number(facts.administrator) === 1;
  const firmAfter = input.companyId === undefined ? Number(facts.firm) === 1 : await companyIsFirm(ctx.store, input.companyId);
  if (adminAfter && firmAfter === false && !errors.includes('Only people of the firm can be administrators')) {
    errors.push('Only people of the firm can be administrators');
  }
  if (ctx.caller.id === id && input.administrator === false) errors.push('You cannot remove your own administrator rights');
  check(errors);
  if (input.password !== undefined && !q) values.password_hash = await hashPassword(input.password);
  if (Object.keys(values).length || (q && input.password !== undefined)) {
    await ctx.store.write(async (w) => {
      const again = await takenBy(w, values.user_name as string | undefined, values.email_address as string | undefined, id);
      if (again.userName || again.email) throw new ApiError(422, [again.userName ? 'User name has already been taken' : 'Email address has already been taken']);
      await w.update('people', id, { ...values, updated_at: w.now });
      if (q) w.outbox?.intent('person.update', { id, person: fields(input) });
    });
  }
  return directory.person(ctx, id);
}

/**
 * `DELETE /people/{id}.xml`: deactivates (D273). The person can no longer sign in: `active` 0 (every
 * credential lookup requires it, so a cached credential is dropped at the next request, in every process:
 * the write moves the change token) and a new token (the old one is revoked). Rows stay: their records
 * keep their author.
 */
export async function deactivatePerson(ctx: Ctx, id: number): Promise<void> {
  adminOnly(ctx, 'deactivate people');
  const q = await queued(ctx.store);
  const facts = await personFacts(ctx.store, id);
  if (!facts) throw notFound('Person');
  if (id === ctx.caller.id) throw new ApiError(422, ['You cannot deactivate yourself']);
  await ctx.store.write(async (w) => {
    // Queued: the replica's copy stops showing as active; no token is made (none of its people signs in here).
    await w.update('people', id, q ? { active: 0, updated_at: w.now } : { active: 0, token: newToken(), updated_at: w.now });
    await dropInvitations(w, id);
    if (q) w.outbox?.intent('person.deactivate', { id });
  });
}

/**
 * `GET /people/deactivated.xml` (D291): the deactivated people's records, for administrators (the person record
 * itself does not say it: its representation is the contract's). On a replica: 409, like every administration
 * route (its copy of a person comes from the team server and does not carry the flag).
 */
export async function deactivatedPeople(ctx: Ctx): Promise<Row[]> {
  adminOnly(ctx, 'see who is deactivated');
  await refuseOnReplica(ctx.store);
  const ids = new Set(await deactivatedIds(ctx.store));
  return ids.size ? (await directory.everyone(ctx)).filter((r) => ids.has(Number(r.id))) : [];
}

/**
 * `GET /people/deactivated-ids.xml` (D331): the ids of the deactivated people among those the caller sees, for any
 * signed-in person (pickers must not offer them as a new choice). `complete` is false on a replica: its copy of a
 * person comes from the team server without the flag, so its list is what it knows locally (usually nothing),
 * not an answer to rely on; the interface then offers everyone, as before (nothing is refused by it).
 */
export async function deactivatedIdsSeen(ctx: Ctx): Promise<{ ids: number[]; complete: boolean }> {
  const complete = (await replicaOf(ctx.store)) === null;
  const off = await deactivatedIds(ctx.store);
  if (!off.length) return { ids: [], complete };
  const seen = new Set((await directory.everyone(ctx)).map((r) => Number(r.id)));
  return { ids: off.filter((id) => seen.has(id)), complete };
}

/**
 * `can-see-private` is the firm flag (contract §5.2: the firm's people see private records, clients never;
 * D276): it is accepted when it says what the company is, and refused otherwise, never silently ignored.
 */
async function checkCompany(ctx: Ctx, input: CompanyInput, create: boolean, id = 0): Promise<{ values: Row; errors: string[] }> {
  const errors: string[] = [];
  const values: Row = {};
  const name = text(errors, 'Name', input.name, create);
  if (name) {
    if (await companyNameTaken(ctx.store, name, id)) errors.push('Name has already been taken');
    values.name = name;
  }
  if (input.canSeePrivate !== undefined) {
    const firm = create ? false : await companyIsFirm(ctx.store, id);
    if (input.canSeePrivate !== firm) {
      errors.push(firm ? 'Can see private cannot be turned off for your own firm' : 'Can see private is only for your own firm: client companies never see private records');
    }
  }
  return { values, errors };
}

export async function createCompany(ctx: Ctx, input: CompanyInput): Promise<Row> {
  adminOnly(ctx, 'add companies');
  const q = await queued(ctx.store);
  const { values, errors } = await checkCompany(ctx, input, true);
  check(errors);
  const id = await ctx.store.write(async (w) => {
    const cid = await w.insert('companies', { ...values, firm: 0 });
    if (q) w.outbox?.intent('company.create', { id: cid, company: { name: input.name, canSeePrivate: input.canSeePrivate } });
    return cid;
  });
  return directory.company(ctx, id);
}

export async function updateCompany(ctx: Ctx, id: number, input: CompanyInput): Promise<Row> {
  await directory.company(ctx, id);
  adminOnly(ctx, 'change companies');
  const q = await queued(ctx.store);
  const { values, errors } = await checkCompany(ctx, input, false, id);
  check(errors);
  if (Object.keys(values).length) {
    await ctx.store.write(async (w) => {
      await w.update('companies', id, values);
      if (q) w.outbox?.intent('company.update', { id, company: { name: input.name, canSeePrivate: input.canSeePrivate } });
    });
  }
  return directory.company(ctx, id);
}

/** `POST /projects/{id}/people.xml`: add a member (already one: no change). */
export async function addProjectMember(ctx: Ctx, projectId: number, personId: number): Promise<Row> {
  await projects.get(ctx, projectId);
  adminOnly(ctx, 'change who is on a project');
  const q = await queued(ctx.store);
  const facts = await personFacts(ctx.store, personId);
  if (!facts) throw new ApiError(422, ['Person is invalid']);
  if (facts.active !== 1) throw new ApiError(422, ['This person is deactivated']);
  await ctx.store.write(async (w) => {
    await addMember(w, projectId, personId);
    if (q) {
      // The membership as a row change too: outside the registry's resources, it makes the entry a barrier of the
      // push's schedule (shared/sync/schedule.ts), so it waits for the person's and the project's creates.
      w.outbox?.insert('project_members', projectId, { project_id: projectId, person_id: personId });
      w.outbox?.intent('member.add', { projectId, personId });
    }
  });
  return directory.person(ctx, personId);
}

/** `DELETE /projects/{id}/people/{person_id}.xml`: remove a member (their replicas drop the project). */
export async function removeProjectMember(ctx: Ctx, projectId: number, personId: number): Promise<void> {
  await projects.get(ctx, projectId);
  adminOnly(ctx, 'change who is on a project');
  const q = await queued(ctx.store);
  if (!(await personFacts(ctx.store, personId))) throw notFound('Person');
  await ctx.store.write(async (w) => {
    await removeMember(w, projectId, personId);
    if (q) {
      w.outbox?.update('project_members', projectId, { person_id: personId }); // a barrier, as above
      w.outbox?.intent('member.remove', { projectId, personId });
    }
  });
}

/**
 * `POST /people/{id}/invitation.xml` (D275): a new one-time token for the person (their open ones are
 * dropped). Only its SHA-256 is stored; the token itself is in this answer and nowhere else.
 */
export async function invite(ctx: Ctx, personId: number): Promise<Invitation> {
  adminOnly(ctx, 'invite people');
  // D339: an invitation is a one-time secret handed to a person: made on the team server, never queued here.
  await refuseOnReplica(ctx.store);
  const facts = await personFacts(ctx.store, personId);
  if (!facts) throw notFound('Person');
  if (facts.active !== 1) throw new ApiError(422, ['This person is deactivated']);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = await ctx.store.write(async (w) => {
    const exp = isoSeconds(new Date(Date.parse(w.now) + INVITATION_DAYS * 86_400_000));
    await dropInvitations(w, personId);
    await insertInvitation(w, sha256(token), personId, w.now, exp);
    return exp;
  });
  return { token, personId, expiresAt };
}

/** One answer for every refused invitation (unknown, expired, used, another person's): nothing to probe. */
export const INVITATION_REFUSED = 'This invitation is not valid: ask an administrator for a new one';

/**
 * `POST /invitations/accept.xml` (public, D275): the invited person sets their password. The token must
 * be open, unexpired and the named person's; it is used up in the same transaction that sets the password.
 */
export async function acceptInvitation(store: Store, token: string, userName: string, password: string): Promise<number> {
  check(passwordProblems(password, userName));
  const hash = await hashPassword(password);
  const id = await store.write(async (w) => {
    const pid = await takeInvitation(w, sha256(token), userName, w.now);
    if (pid === undefined) return undefined;
    await w.update('people', pid, { password_hash: hash, updated_at: w.now });
    return pid;
  });
  if (id === undefined) throw new ApiError(404, [INVITATION_REFUSED]);
  return id;
}

/**
 * Who the command line acts as (D277): whoever can open the data directory or database holds every
 * record already, so `bivouac people|projects|members` act as the account's first active administrator.
 */
export async function localAdministrator(store: Store): Promise<Caller | null> {
  for (const id of await firmAdminIds(store)) {
    const r = await authPersonById(store, id);
    if (r) return { id: r.id, companyId: r.company_id, firm: true, admin: true, name: `${r.first_name} ${r.last_name}` };
  }
  return null;
}
