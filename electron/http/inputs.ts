// Decoding of the resource bodies (contract §2.5, §8.1–§8.10) into the typed inputs of the services
// (issue #30, D323): XML or JSON (the same tree), `<request>` wrapping tolerated as everywhere. Field
// values are taken as the body gives them (text, nil, or NESTED) and checked by the service through the
// registry (shared/values.ts `validateInput`), after the checks that come first (404, 403): the decoders
// here never answer a 422 themselves, so the order of the answers is the one the contract's suite knows.
// Selectors that were always read before anything else (`find`, `complete`, `category-id` of the
// archive, the selecting ids of /msg/…) are read here and keep their answers.

import { child, fieldNode, recordElement, type XNode } from '../../shared/codec/in.ts';
import { RESOURCES, type Resource } from '../../shared/registry.ts';
import { nodeValue, recordFields, type Given, type Nested } from '../../shared/values.ts';
import type {
  CategoryInput, CommentInput, MilestoneInput, MilestoneUpdateInput, NewProjectInput, PostInput, ProjectInput, TimeEntryInput,
  TimeEntrySaveInput, TodoItemInput, TodoListInput,
} from '../../shared/client.ts';
import { ApiError, badRequest, notFound } from '../service/context.ts';
import type { Find } from '../service/milestones.ts';
import type { Filter } from '../service/todo-lists.ts';

/** The record of a body as the resource's given input (registry-driven). */
function recordInput<T>(r: Resource, root: XNode | null, rec: XNode | null = recordElement(root, r.recordNames)): Given<T> {
  return recordFields(r, root, rec) as Given<T>;
}

/** One extra field (not a registry input) as the body gives it, or undefined. */
function extra(root: XNode | null, rec: XNode | null, name: string): string | null | Nested | undefined {
  const node = fieldNode(root, rec, name);
  return node ? nodeValue(node) : undefined;
}

export const projectInput = (root: XNode | null): Given<ProjectInput> => recordInput(RESOURCES.project, root);

/** A new project: the record, and `company-id` (the firm's when absent). */
export function newProjectInput(root: XNode | null): Given<NewProjectInput> {
  const rec = recordElement(root, RESOURCES.project.recordNames);
  const companyId = extra(root, rec, 'company-id');
  const input: Given<NewProjectInput> = recordInput(RESOURCES.project, root, rec);
  return companyId === undefined ? input : { ...input, company_id: companyId };
}

export const categoryInput = (root: XNode | null): Given<CategoryInput> => recordInput(RESOURCES.category, root);
export const postInput = (root: XNode | null): Given<PostInput> => recordInput(RESOURCES.post, root);
export const commentInput = (root: XNode | null): Given<CommentInput> => recordInput(RESOURCES.comment, root);
export const todoListInput = (root: XNode | null): Given<TodoListInput> => recordInput(RESOURCES.todoList, root);
export const todoItemInput = (root: XNode | null): Given<TodoItemInput> => recordInput(RESOURCES.todoItem, root);
export const timeEntryInput = (root: XNode | null): Given<TimeEntryInput> => recordInput(RESOURCES.timeEntry, root);

/** `POST /time/save_entry`: the entry and its project, `project-id` of the body (§8.10). */
export function legacyTimeEntryInput(root: XNode | null): Given<TimeEntrySaveInput> {
  const rec = recordElement(root, RESOURCES.timeEntry.recordNames);
  const projectId = extra(root, rec, 'project-id');
  const input: Given<TimeEntrySaveInput> = recordInput(RESOURCES.timeEntry, root, rec);
  return projectId === undefined ? input : { ...input, project_id: projectId };
}

/**
 * The records of a milestone create (§8.7): every `<milestone>` child of `<request>` (a batch);
 * else the bare root, or the flat `<request>` itself. A JSON array of objects is a batch too.
 * Fields of `<request>` itself count for each record (fieldNode).
 */
export function milestoneInputs(root: XNode | null): Given<MilestoneInput>[] {
  const R = RESOURCES.milestone;
  const recs = ((): (XNode | null)[] => {
    if (!root) return [null];
    if (root.name !== 'request') return [root];
    const ms = root.children.filter((c) => c.name === 'milestone');
    if (ms.length) return ms;
    const items = root.children.filter((c) => c.name === 'item' && c.children.length > 0);
    if (items.length && items.length === root.children.length) return items;
    return [recordElement(root, R.recordNames)];
  })();
  return recs.map((rec) => recordInput<MilestoneInput>(R, root, rec));
}

/** A milestone update: the record and the move-upcoming-milestones flags (§8.7). */
export function milestoneUpdate(root: XNode | null): Given<MilestoneUpdateInput> {
  const rec = recordElement(root, RESOURCES.milestone.recordNames);
  const shift = extra(root, rec, 'move-upcoming-milestones');
  const offWeekends = extra(root, rec, 'move-upcoming-milestones-off-weekends');
  return {
    ...recordInput<MilestoneUpdateInput>(RESOURCES.milestone, root, rec),
    ...(shift === undefined ? {} : { move_upcoming_milestones: shift }),
    ...(offWeekends === undefined ? {} : { move_upcoming_milestones_off_weekends: offWeekends }),
  };
}

/**
 * The ids of a reorder body (§8.8, §8.9), as given: `<todo-lists type="array"><todo-list><id>…`, the
 * same inside `<request>`, or a JSON array of `{id}`. A record without an id gives ''. The service
 * checks them (422 after its 404).
 */
export function idsInput(root: XNode | null, collection: string): string[] {
  if (!root) return [];
  let container = root;
  if (root.name === 'request') {
    const inner = root.children.filter((c) => c.name === collection);
    if (inner.length === 1 && !child(inner[0], 'id')) container = inner[0];
  }
  return container.children.map((rec) => {
    const node = rec.children.length ? child(rec, 'id') : rec;
    return node && !node.children.length ? node.text : '';
  });
}

/** `<request><to>N</to></request>` (§8.8, §8.9) as given: undefined when absent, '' when nil or nested. */
export function toInput(root: XNode | null): string | undefined {
  const node = root ? (child(root, 'to') ?? (root.name === 'to' ? root : undefined)) : undefined;
  if (!node) return undefined;
  return node.nil || node.children.length ? '' : node.text;
}

const digits = (s: string): boolean => /^\d{1,16}$/.test(s) && Number(s) > 0 && Number(s) <= Number.MAX_SAFE_INTEGER;

/**
 * A record-selecting id of the body (§2.6; `/msg/create_comment`, `/msg/update_comment`): missing or
 * empty is 422; not an id is 404 (unknown or invisible: the service's 404).
 */
export function selectingId(root: XNode | null, names: readonly string[], name: string, label: string): number {
  const node = fieldNode(root, recordElement(root, names), name);
  if (!node || node.nil || (!node.children.length && node.text.trim() === '')) throw new ApiError(422, [`${label} can't be blank`]);
  const t = node.text.trim();
  if (node.children.length || !digits(t)) throw notFound(label);
  return Number(t);
}

/**
 * `/projects/{id}/msg/archive`: the optional selector `category-id` comes from the body's
 * `<request>`, else from the query. Not digits: 400; not a possible id: 404 (Category).
 */
export function archiveCategory(root: XNode | null, query: string | undefined): number | undefined {
  const node = root ? child(root, 'category-id') : undefined;
  const fromBody = node && !node.nil && !node.children.length ? node.text.trim() : '';
  const raw = fromBody !== '' ? fromBody : query?.trim() || undefined;
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest('category-id must be a category id');
  const id = Number(raw);
  if (!(id > 0 && id <= Number.MAX_SAFE_INTEGER)) throw notFound('Category');
  return id;
}

/** `find` of the milestone list route (§8.7), from the body's `<request>`, else the query. Other values 400. */
export function findInput(root: XNode | null, query: string | undefined): Find {
  const node = child(root, 'find');
  const raw = node ? (node.nil ? '' : node.text.trim()) : (query ?? '').trim();
  switch (raw) {
    case '': case 'all': return 'all';
    case 'late': return 'late';
    case 'upcoming': return 'upcoming';
    case 'completed': case 'complete': return 'completed';
    default: throw badRequest(`find must be all, late, upcoming or completed (got "${raw}")`);
  }
}

/** The `complete` selector of /projects/{id}/todos/lists: body `<request>`, else the query. */
export function completeInput(root: XNode | null, query: string | undefined): Filter {
  const node = child(root, 'complete');
  const raw = node ? (node.nil ? '' : node.text.trim()) : (query ?? '').trim();
  const t = raw.toLowerCase();
  if (t === '') return 'all';
  if (t === 'true' || t === '1') return 'finished';
  if (t === 'false' || t === '0') return 'pending';
  throw badRequest(`complete must be true, false, 1 or 0 (got "${raw}")`);
}
