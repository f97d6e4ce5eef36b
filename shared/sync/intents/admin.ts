// Intents of the team's administration (D336, D338, issue #27): people, companies, projects and members changed on a
// replica, replayed on a team server through its administration routes (docs/api-extensions.md). A plain
// server has no such routes: a replica of one refuses these actions at once, so none is ever queued for it. Pure.
//
// A password given offline (D339) lives only in the `person.create`/`person.update` intent's arguments, in the
// outbox entry, until that entry is pushed or refused (the entry is then deleted): never in a row, a row change,
// a rejection (its message is the server's, which names no value) or a conflict.

import { RESOURCES } from '../../registry.ts';
import { planAction, Unmapped, type RowChange, type Step } from '../plan.ts';
import { element, recordBody } from '../wire.ts';
import type { IdLookup } from '../ids.ts';
import type { IntentPlanner } from './types.ts';

/** A person's fields as given (local ids); only those given are sent. */
export interface PersonFields {
  readonly firstName?: string; readonly lastName?: string; readonly userName?: string; readonly emailAddress?: string;
  readonly companyId?: number; readonly administrator?: boolean; readonly password?: string; readonly title?: string;
}
export interface CompanyFields { readonly name?: string; readonly canSeePrivate?: boolean }

/** Each administration intent's arguments (local ids). */
export interface AdminIntents {
  'person.create': { readonly id: number; readonly person: PersonFields };
  'person.update': { readonly id: number; readonly person: PersonFields };
  'person.deactivate': { readonly id: number };
  'company.create': { readonly id: number; readonly company: CompanyFields };
  'company.update': { readonly id: number; readonly company: CompanyFields };
  /** The project's own row changes are replayed as before (plan.ts): a plain server refuses a create itself. */
  'project.create': { readonly id: number };
  'project.update': { readonly id: number };
  'member.add': { readonly projectId: number; readonly personId: number };
  'member.remove': { readonly projectId: number; readonly personId: number };
}

const remoteOf = (map: IdLookup, r: 'person' | 'company' | 'project', id: number): number => {
  const x = map(r, id);
  if (x === undefined) throw new Unmapped(r, id);
  return x;
};

function personBody(p: PersonFields, map: IdLookup): string {
  let out = '';
  const put = (name: string, v: string | number | boolean | undefined) => { if (v !== undefined) out += element(name, typeof v === 'boolean' ? String(v) : v); };
  put('first-name', p.firstName);
  put('last-name', p.lastName);
  put('user-name', p.userName);
  put('email-address', p.emailAddress);
  put('title', p.title);
  put('company-id', p.companyId === undefined ? undefined : remoteOf(map, 'company', p.companyId));
  put('administrator', p.administrator);
  put('password', p.password);
  return recordBody(RESOURCES.person, out);
}

function companyBody(c: CompanyFields): string {
  let out = '';
  if (c.name !== undefined) out += element('name', c.name);
  if (c.canSeePrivate !== undefined) out += element('can-see-private', String(c.canSeePrivate));
  return recordBody(RESOURCES.company, out);
}

/** The project's own row changes in this entry, planned as any record's (its create may be refused by a plain server). */
const projectRows = (id: number, changes: readonly RowChange[]) => changes.filter((c) => c.t === 'projects' && c.id === id);

export const ADMIN_PLANNERS: { readonly [N in keyof AdminIntents]: IntentPlanner<AdminIntents[N]> } = {
  'person.create': (a, _c, _v, map): Step[] => [{ kind: 'create', resource: 'person', localId: a.id, method: 'POST', path: '/people.xml', body: personBody(a.person, map) }],
  'person.update': (a, _c, _v, map): Step[] => {
    const rid = remoteOf(map, 'person', a.id);
    return [{ kind: 'update', resource: 'person', localId: a.id, method: 'PUT', path: `/people/${rid}.xml`, body: personBody(a.person, map) }];
  },
  'person.deactivate': (a, _c, _v, map): Step[] => {
    const rid = remoteOf(map, 'person', a.id);
    return [{ kind: 'delete', resource: 'person', localId: a.id, method: 'DELETE', path: `/people/${rid}.xml`, body: null }];
  },
  'company.create': (a): Step[] => [{ kind: 'create', resource: 'company', localId: a.id, method: 'POST', path: '/companies.xml', body: companyBody(a.company) }],
  'company.update': (a, _c, _v, map): Step[] => {
    const rid = remoteOf(map, 'company', a.id);
    return [{ kind: 'update', resource: 'company', localId: a.id, method: 'PUT', path: `/companies/${rid}.xml`, body: companyBody(a.company) }];
  },
  'project.create': (a, changes, view, map) => planAction(projectRows(a.id, changes), view, map),
  'project.update': (a, changes, view, map) => planAction(projectRows(a.id, changes), view, map),
  'member.add': (a, _c, _v, map): Step[] => {
    const project = remoteOf(map, 'project', a.projectId);
    const person = remoteOf(map, 'person', a.personId);
    return [{ kind: 'update', resource: 'project', localId: a.projectId, method: 'POST', path: `/projects/${project}/people.xml`, body: recordBody(RESOURCES.person, element('id', person)) }];
  },
  'member.remove': (a, _c, _v, map): Step[] => {
    const project = remoteOf(map, 'project', a.projectId);
    const person = remoteOf(map, 'person', a.personId);
    return [{ kind: 'update', resource: 'project', localId: a.projectId, method: 'DELETE', path: `/projects/${project}/people/${person}.xml`, body: null }];
  },
};

/**
 * Where this store's people, companies and members are administered (D338), from its sync state:
 * `here` (not a replica), `queued` (a replica of a team server that takes them: applied here, pushed as intents),
 * or `elsewhere` with the refusal's words and the address where it is done (a replica of a plain server, of a team
 * server without the `admin` capability or not read yet, or a disconnected replica).
 */
export type Administration =
  | { readonly mode: 'here' }
  | { readonly mode: 'queued'; readonly at: string }
  | { readonly mode: 'elsewhere'; readonly at: string; readonly plain: boolean; readonly message: string };

/** The sync state key that holds what the remote's capabilities said at the last sync: `admin`, `team` or `plain`. */
export const REMOTE_KIND = 'remote_kind';

export function administrationOf(get: (key: string) => string | null | undefined): Administration {
  const url = get('url');
  const was = get('was_url');
  if (url && get(REMOTE_KIND) === 'admin') return { mode: 'queued', at: url };
  if (url && get(REMOTE_KIND) === 'plain') {
    return { mode: 'elsewhere', at: url, plain: true, message: `${url} is not a Bivouac team server: people, companies and project members are managed there, not from this copy` };
  }
  const at = url ?? was;
  if (!at) return { mode: 'here' };
  return { mode: 'elsewhere', at, plain: false, message: `This is a copy of the team server at ${at}: people, companies and project members are managed on the team server` };
}
