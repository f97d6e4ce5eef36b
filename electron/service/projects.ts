// Project operations (contract §8.1, extensions: count, create, update).

import { RESOURCES } from '../../shared/registry.ts';
import { readGiven, toColumns, validateInput, type Given } from '../../shared/values.ts';
import type { NewProjectInput, ProjectInput } from '../../shared/client.ts';
import { countProjects, getProject, listProjects } from '../store/queries/projects.ts';
import { companyExists, firmCompanyId } from '../store/queries/companies.ts';
import { check, forbidden, notFound, type Ctx } from './context.ts';
import type { Row } from '../store/types.ts';
import type { ProjectRow } from '../../shared/rows.ts';
import { addMember } from '../store/feed.ts';
import { projectStatus } from '../store/queries/admin.ts';
import type { Store, Writer } from '../store/types.ts';
import { state as syncState, type SyncStateKey } from '../store/queries/replica.ts';
import { administrationOf } from '../../shared/sync/intents/admin.ts';
import { ApiError } from './context.ts';

/**
 * A replica of a plain server refuses a project's create and update at once (issue #27, D347): they are extension
 * routes a plain server does not have, so queuing them would only fail at the push. A replica of a team server, or
 * one disconnected (its outbox waits for the next connect, D151), queues them as before.
 */
async function refuseOnPlain(store: Store, what: string): Promise<void> {
  if (!store.recordOutbox) return;
  const st = await syncState(store);
  const a = administrationOf((k) => st.get(k as SyncStateKey));
  if (a.mode === 'elsewhere' && a.plain) throw new ApiError(409, [`${a.at} is not a Bivouac team server: ${what} there, not from this copy`]);
}

const R = RESOURCES.project;

export const list = (ctx: Ctx): Promise<ProjectRow[]> => listProjects(ctx.store, ctx.caller);
export const count = (ctx: Ctx): Promise<Record<string, number>> => countProjects(ctx.store, ctx.caller);

/** A visible project, or 404. */
export async function get(ctx: Ctx, id: number): Promise<ProjectRow> {
  const p = await getProject(ctx.store, ctx.caller, id);
  if (!p) throw notFound('Project');
  return p;
}

export async function create(ctx: Ctx, input: Given<NewProjectInput>): Promise<ProjectRow> {
  if (!ctx.caller.admin) throw forbidden('Only administrators can create projects');
  await refuseOnPlain(ctx.store, 'projects are created');
  const v = validateInput(R, 'create', input, ctx.caller);
  let companyId: number | null = null;
  if (input.company_id !== undefined) {
    const c = readGiven({ name: 'company-id', type: 'integer', inputKind: 'reference' }, input.company_id);
    if (!c.ok) v.errors.push('Company is invalid');
    else if (c.value !== null) {
      if (await companyExists(ctx.store, c.value as number)) companyId = c.value as number;
      else v.errors.push('Company is invalid');
    }
  }
  check(v.errors);
  const id = await ctx.store.write(async (w) => {
    const firm = companyId ?? (await firmCompanyId(w))!;
    const pid = await w.insert('projects', {
      ...toColumns(v.values), company_id: firm, created_on: w.now.slice(0, 10), last_changed_on: w.now,
    });
    await addMember(w, pid, ctx.caller.id);
    w.outbox?.intent('project.create', { id: pid }); // D338: replayed from its row changes, as before
    return pid;
  });
  return get(ctx, id);
}

export async function update(ctx: Ctx, id: number, input: Given<ProjectInput>): Promise<ProjectRow> {
  await get(ctx, id);
  if (!ctx.caller.admin) throw forbidden('Only administrators can change projects');
  await refuseOnPlain(ctx.store, 'projects are renamed and archived');
  const v = validateInput(R, 'update', input, ctx.caller);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await w.update('projects', id, toColumns(v.values), id);
      w.outbox?.intent('project.update', { id }); // D338
    });
  }
  return get(ctx, id);
}

/** The answer to a write inside an archived project (D277). */
export const ARCHIVED = 'This project is archived: it is read-only (an administrator can make it active again)';

/**
 * The store as a request that may write sees it (D277): a record written inside an archived project
 * (insert, update or delete with that project's id) is refused with 403 before the transaction commits.
 * The project's own row and its members stay writable (un-archiving, administration); reads are untouched.
 * Each project is checked once per transaction.
 */
export function archivedGuard(store: Store): Store {
  const guardWriter = (w: Writer): Writer => {
    const checked = new Set<number>();
    const guard = async (table: string, projectId: unknown): Promise<void> => {
      const pid = Number(projectId);
      if (table === 'projects' || !projectId || checked.has(pid)) return;
      if (await projectStatus(w, pid) === 'archived') throw forbidden(ARCHIVED);
      checked.add(pid);
    };
    return new Proxy(w, {
      get(target, key) {
        if (key === 'insert') return async (t: string, v: Row, p?: number | null) => { await guard(t, v.project_id ?? p); return target.insert(t, v, p); };
        if (key === 'update') return async (t: string, id: number, v: Row, p?: number | null) => { await guard(t, p); await guard(t, v.project_id); return target.update(t, id, v, p); };
        if (key === 'remove') return async (t: string, id: number, p?: number | null) => { await guard(t, p); return target.remove(t, id, p); };
        const v: unknown = Reflect.get(target, key, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  };
  return new Proxy(store, {
    get(target, key) {
      if (key === 'write') return <T>(fn: (w: Writer) => Promise<T>): Promise<T> => target.write((w) => fn(guardWriter(w)));
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
