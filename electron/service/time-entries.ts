// Time entry operations (contract §8.10): report (resource and legacy path forms), project
// and item lists, get, create (project, legacy save_entry, todo item), update, delete, and the
// new/edit templates (§8.11). Visibility rules (§5.2) live in the queries; invisible = 404.

import { RESOURCES } from '../../shared/registry.ts';
import { givenText, parseQueryDate, toColumns, validateInput, type Given, type Validated } from '../../shared/values.ts';
import type { TimeEntryInput, TimeEntrySaveInput } from '../../shared/client.ts';
import {
  countProjectEntries, getEntry, listItemEntries, listProjectEntries, reportEntries, type ReportFilter,
} from '../store/queries/time-entries.ts';
import { visibleItem } from '../store/queries/references.ts';
import { checkReferences, recheckReferences } from './references.ts';
import { badRequest, check, invalid, notFound, type Caller, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import { blankTemplate, editForm, type Template } from './templates.ts';
import type { Queryable, Row } from '../store/types.ts';
import type { TimeEntryRow } from '../../shared/rows.ts';
import { deleteRecord } from '../store/delete-record.ts';

const R = RESOURCES.timeEntry;
export const PAGE_SIZE = 50;

// ---- reads --------------------------------------------------------------------------------

/** A visible entry, or 404. */
export async function get(ctx: Ctx, id: number): Promise<TimeEntryRow> {
  const e = await getEntry(ctx.store, ctx.caller, id);
  if (!e) throw notFound('Time entry');
  return e;
}

export interface Page {
  readonly rows: Row[];
  /** X-Records, X-Pages, X-Page (§6.3). */
  readonly headers: Record<string, string>;
}

/** `page` query value: digits, `0` read as 1, absent = 1 (§2.3, §6.3). Returns the page as digits. */
export function parsePage(raw: string | undefined): string {
  if (raw === undefined) return '1';
  if (!/^\d+$/.test(raw)) throw badRequest('page must be a page number (decimal digits)');
  const n = raw.replace(/^0+/, '');
  return n === '' ? '1' : n;
}

/** One page of a project's visible entries, with the paging headers (§6.3). */
export async function listForProject(ctx: Ctx, projectId: number, pageRaw?: string): Promise<Page> {
  const page = parsePage(pageRaw);
  await projects.get(ctx, projectId);
  const records = await countProjectEntries(ctx.store, ctx.caller, projectId);
  const pages = Math.max(1, Math.ceil(records / PAGE_SIZE));
  const n = page.length > 15 ? Infinity : Number(page);
  const rows = records === 0 || n > pages ? [] : await listProjectEntries(ctx.store, ctx.caller, projectId, PAGE_SIZE, (n - 1) * PAGE_SIZE);
  return { rows, headers: { 'X-Records': String(records), 'X-Pages': String(pages), 'X-Page': page } };
}

/** A todo item the caller sees, or 404. */
async function item(ctx: Ctx, itemId: number): Promise<{ id: number; project_id: number }> {
  const it = await visibleItem(ctx.store, ctx.caller, itemId);
  if (!it) throw notFound('Todo item');
  return it;
}

export async function listForItem(ctx: Ctx, itemId: number): Promise<TimeEntryRow[]> {
  await item(ctx, itemId);
  return listItemEntries(ctx.store, ctx.caller, itemId);
}

// ---- report -------------------------------------------------------------------------------

/** A report filter that matches nothing (an id beyond any record, or from after to). */
const NOTHING = Symbol('nothing');
type Filter = ReportFilter | typeof NOTHING;

/** An id filter value: digits; `0` (and absent) = not set. Huge ids match nothing. */
function idFilter(name: string, raw: string | undefined): number | undefined | typeof NOTHING {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`${name} must be an id (decimal digits)`);
  const t = raw.replace(/^0+/, '');
  if (t === '') return undefined;
  return t.length > 15 ? NOTHING : Number(t);
}

function dateFilter(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const d = parseQueryDate(raw);
  if (d === null) throw badRequest(`${name} must be a date (YYYYMMDD or YYYY-MM-DD)`);
  return d;
}

function combine(parts: {
  from?: string; to?: string;
  personId?: number | typeof NOTHING; todoItemId?: number | typeof NOTHING;
  projectId?: number | typeof NOTHING; companyId?: number | typeof NOTHING;
}): Filter {
  const vals = [parts.personId, parts.todoItemId, parts.projectId, parts.companyId];
  if (vals.includes(NOTHING)) return NOTHING;
  if (parts.from !== undefined && parts.to !== undefined && parts.from > parts.to) return NOTHING;
  return parts as ReportFilter;
}

/** `GET /time_entries/report.xml` query parameters (§8.10, §2.3); bad forms are 400. */
export function reportQuery(q: (name: string) => string | undefined): Filter {
  return combine({
    from: dateFilter('from', q('from')),
    to: dateFilter('to', q('to')),
    personId: idFilter('subject_id', q('subject_id')),
    todoItemId: idFilter('todo_item_id', q('todo_item_id')),
    projectId: idFilter('filter_project_id', q('filter_project_id')),
    companyId: idFilter('filter_company_id', q('filter_company_id')),
  });
}

/** A legacy path date: a date, or `0` or empty for unbounded. */
function legacyDate(name: string, seg: string): string | undefined {
  return seg === '' || seg === '0' ? undefined : dateFilter(name, seg);
}

/** `/time/report/{person_id}/{from}/{to}/{filter}` segments (§8.10); bad forms are 400. */
export function legacyReport(person: string, from: string, to: string, filter: string): Filter {
  const personId = idFilter('person_id', person === '' ? undefined : person);
  let projectId: number | undefined | typeof NOTHING;
  let companyId: number | undefined | typeof NOTHING;
  if (filter !== '') {
    const m = /^([pc])(\d+)$/.exec(filter);
    if (!m) throw badRequest('filter must be p{project_id}, c{company_id} or empty');
    if (m[1] === 'p') projectId = idFilter('filter', m[2]);
    else companyId = idFilter('filter', m[2]);
  }
  return combine({ personId, from: legacyDate('from', from), to: legacyDate('to', to), projectId, companyId });
}

/** All visible entries matching the filter, date descending. */
export async function report(ctx: Ctx, f: Filter): Promise<TimeEntryRow[]> {
  if (f === NOTHING) return [];
  return reportEntries(ctx.store, ctx.caller, f);
}

// ---- writes -------------------------------------------------------------------------------

const WRITABLE = ['date', 'description', 'hours', 'person-id', 'private', 'todo-item-id'];

/**
 * The checks that need the project (§8.10): person-id is a person with access to it (and one the
 * caller may see, §5.3); todo-item-id an item of it that the caller sees. Adds errors to `v`.
 */
async function checkRefs(db: Queryable, caller: Caller, projectId: number, v: Validated, mode: 'create' | 'update', stored?: Row): Promise<void> {
  // Empty or 0 person: on create the default (the caller); an entry always has a person.
  if (!v.values.has('person-id') || v.values.get('person-id') === null) {
    if (mode === 'create') v.values.set('person-id', caller.id);
    else if (v.values.has('person-id')) v.errors.push("Person can't be blank");
  }
  await checkReferences(db, caller, R, projectId, v, stored);
}

function readEntry(input: Given<TimeEntryInput>, caller: Caller, mode: 'create' | 'update', fromRoute: boolean): Validated {
  const only = fromRoute ? WRITABLE.filter((n) => n !== 'todo-item-id') : WRITABLE;
  return validateInput(R, mode, input, caller, only);
}

async function insert(ctx: Ctx, projectId: number, v: Validated, todoItemId?: number): Promise<TimeEntryRow> {
  const cols = toColumns(v.values);
  const values: Row = {
    date: cols.date, hours: cols.hours, description: cols.description ?? '', person_id: cols.person_id,
    private: cols.private ?? 0, todo_item_id: todoItemId ?? cols.todo_item_id ?? null, project_id: projectId,
  };
  const id = await ctx.store.write(async (w) => {
    await recheckReferences(w, ctx.caller, R, projectId, v);
    const eid = await w.insert(R.table, values, projectId);
    w.outbox?.intent('timeEntry.create', { id: eid });
    return eid;
  });
  return get(ctx, id);
}

/** `POST /projects/{id}/time_entries.xml`. */
export async function create(ctx: Ctx, projectId: number, input: Given<TimeEntryInput>): Promise<TimeEntryRow> {
  await projects.get(ctx, projectId);
  const v = readEntry(input, ctx.caller, 'create', false);
  await checkRefs(ctx.store, ctx.caller, projectId, v, 'create');
  check(v.errors);
  return insert(ctx, projectId, v);
}

/** `POST /todo_items/{id}/time_entries.xml`: the item (and its project) come from the route. */
export async function createForItem(ctx: Ctx, itemId: number, input: Given<TimeEntryInput>): Promise<TimeEntryRow> {
  const it = await item(ctx, itemId);
  const projectId = it.project_id;
  const v = readEntry(input, ctx.caller, 'create', true);
  await checkRefs(ctx.store, ctx.caller, projectId, v, 'create');
  check(v.errors);
  return insert(ctx, projectId, v, itemId);
}

/**
 * `POST /time/save_entry`: the project comes from the body field `project-id`, a selecting id
 * (§2.6): missing or empty is 422, not digits, unknown or not visible is 404.
 */
export async function createLegacy(ctx: Ctx, input: Given<TimeEntrySaveInput>): Promise<TimeEntryRow> {
  const raw = (givenText(input.project_id) ?? '').trim();
  if (raw === '') {
    // Report the missing project with every other problem the body has (§4.4).
    const v = readEntry(input, ctx.caller, 'create', false);
    throw invalid(["Project can't be blank", ...v.errors]);
  }
  if (!/^\d{1,16}$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) throw notFound('Project');
  return create(ctx, Number(raw), input);
}

/** `PUT /time_entries/{id}.xml`, `POST /time/save_entry/{id}`: partial update. */
export async function update(ctx: Ctx, id: number, input: Given<TimeEntryInput>): Promise<TimeEntryRow> {
  const e = await get(ctx, id);
  const projectId = e.project_id;
  const v = readEntry(input, ctx.caller, 'update', false);
  await checkRefs(ctx.store, ctx.caller, projectId, v, 'update', e);
  check(v.errors);
  if (v.values.size) {
    await ctx.store.write(async (w) => {
      await recheckReferences(w, ctx.caller, R, projectId, v);
      await w.update(R.table, id, toColumns(v.values), projectId);
      w.outbox?.intent('timeEntry.update', { id });
    });
  }
  return get(ctx, id);
}

/** Delete a visible entry; answers it as it was. With a project, the entry must be in it (404). */
export async function remove(ctx: Ctx, id: number, projectId?: number): Promise<TimeEntryRow> {
  if (projectId !== undefined) await projects.get(ctx, projectId);
  const e = await get(ctx, id);
  if (projectId !== undefined && e.project_id !== projectId) throw notFound('Time entry');
  await ctx.store.write(async (w) => {
    await deleteRecord(w, 'timeEntry', id);
    w.outbox?.intent('timeEntry.delete', { id });
  });
  return e;
}

// ---- templates (§8.11), through the shared helper service/templates.ts ----------------------

export async function newTemplate(ctx: Ctx, projectId: number): Promise<{ template: Template; action: string }> {
  await projects.get(ctx, projectId);
  return { template: blankTemplate(R, ctx.caller), action: `POST /projects/${projectId}/time_entries.xml` };
}

export async function editTemplate(ctx: Ctx, id: number): Promise<{ template: Template; action: string }> {
  const e = await get(ctx, id);
  return { template: await editForm(ctx, R, e), action: `PUT /time_entries/${id}.xml` };
}
