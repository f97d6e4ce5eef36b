// Conflict notices on the team server (issue #26, D312, D328): the replica that recorded a conflict tells
// the other side through here. `POST /sync/notices.json` takes notices from any signed-in person, so each
// is checked as hostile input: bounded sizes, known resources, kinds and fields, a project the sender sees
// and a record that is (or was, by its tombstone) in that project. `GET /sync/notices.json?since=` reads
// the notices of the projects the reader sees now; who sent one is the server's word (the sender's name),
// never the body's.

import { fieldLabel, RESOURCES, type ResourceKey } from '../../shared/registry.ts';
import { goneClientVisible, noticesPage, projectOfRecord, putNotice } from '../store/queries/notices.ts';
import { isoSeconds } from '../../shared/values.ts';
import { ApiError, badRequest, invalid, type Ctx } from './context.ts';
import * as projects from './projects.ts';
import { visible } from './feed.ts';

/** At most this many notices in one POST. */
export const NOTICES_MAX = 100;
const TEXT_MAX = 2000;
const TITLE_MAX = 200;
const PLACE_MAX = 4;
const KEY = /^[\x21-\x7e]{1,128}$/;

/**
 * What happened, from the sender's side (D328):
 * - `field`: both changed `field`; the sender's value (`kept`) won over `overwritten`;
 * - `delete-vs-edit`: the sender deleted the record; the edit `overwritten` was lost with it;
 * - `edit-vs-delete`: the sender's edit (`overwritten`) was lost because the record was deleted;
 * - `parent-deleted`: the sender added a `child` (its text in `overwritten`) under the deleted record;
 * - `restored` / `dropped`: the sender restored the deleted record with its work (D311), or left it deleted.
 */
export const KINDS = ['field', 'delete-vs-edit', 'edit-vs-delete', 'parent-deleted', 'restored', 'dropped'] as const;
export type NoticeKind = typeof KINDS[number];

export interface Notice {
  readonly key: string;
  readonly kind: NoticeKind;
  readonly project: number;
  /** The record the notice is about (its id on the team server); for the deletion kinds, the record deleted. */
  readonly resource: ResourceKey;
  readonly id: number;
  /** A field people edit (a label in the registry), or '*' for a whole record (`child`). */
  readonly field: string;
  readonly child: ResourceKey | null;
  readonly overwritten: string | null;
  readonly kept: string | null;
  readonly title: string;
  readonly place: readonly string[];
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const text = (v: unknown, max: number, what: string, errors: string[]): string | null => {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') { errors.push(`${what} must be a string or null`); return null; }
  if (v.length > max) { errors.push(`${what} is longer than ${max} characters`); return null; }
  return v;
};
const NO_PROJECT: ReadonlySet<ResourceKey> = new Set(['person', 'company']);

/** Decode a POST body: 400 when it is not a notices document, 413 over the count, 422 naming each bad field. */
export function parseNotices(buf: Buffer | undefined): Notice[] {
  let j: unknown;
  try { j = JSON.parse(buf ? buf.toString('utf8') : ''); } catch { throw badRequest('Notices are a JSON object: {"notices":[…]}'); }
  const list = (j as { notices?: unknown } | null)?.notices;
  if (!Array.isArray(list) || !list.length) throw badRequest('A "notices" array of at least one notice is needed');
  if (list.length > NOTICES_MAX) throw new ApiError(413, [`At most ${NOTICES_MAX} notices in one request (this one has ${list.length}): send them in parts`]);
  const errors: string[] = [];
  const out = list.map((n: unknown, i): Notice => {
    const o = (n && typeof n === 'object' ? n : {}) as Record<string, unknown>;
    const at = `Notice ${i + 1}`;
    const e0 = errors.length;
    if (typeof o.key !== 'string' || !KEY.test(o.key)) errors.push(`${at}: "key" must be 1 to 128 visible ASCII characters`);
    if (!KINDS.includes(o.kind as NoticeKind)) errors.push(`${at}: "kind" must be one of ${KINDS.join(', ')}`);
    if (!isId(o.project)) errors.push(`${at}: "project" must be a project id`);
    const res = typeof o.resource === 'string' && Object.hasOwn(RESOURCES, o.resource) && !NO_PROJECT.has(o.resource as ResourceKey) ? o.resource as ResourceKey : null;
    if (!res) errors.push(`${at}: "resource" must be a resource of a project (todoItem, post…)`);
    if (!isId(o.id)) errors.push(`${at}: "id" must be a record id`);
    const child = o.child === null || o.child === undefined ? null
      : typeof o.child === 'string' && Object.hasOwn(RESOURCES, o.child) && !NO_PROJECT.has(o.child as ResourceKey) ? o.child as ResourceKey : undefined;
    if (child === undefined) errors.push(`${at}: "child" must be a resource of a project or null`);
    const field = typeof o.field === 'string' ? o.field : '';
    if (field === '*') { if (o.kind === 'field') errors.push(`${at}: a "field" notice names a field`); }
    else if (!res || fieldLabel(child ?? res, field) === null) errors.push(`${at}: "field" must be a field people edit of the record, or "*"`);
    const overwritten = text(o.overwritten, TEXT_MAX, `${at}: "overwritten"`, errors);
    const kept = text(o.kept, TEXT_MAX, `${at}: "kept"`, errors);
    const title = text(o.title, TITLE_MAX, `${at}: "title"`, errors) ?? '';
    const place = Array.isArray(o.place) ? o.place : o.place === undefined ? [] : null;
    if (!place || place.length > PLACE_MAX) errors.push(`${at}: "place" must be a list of at most ${PLACE_MAX} names`);
    const names = (place ?? []).map((p, k) => text(p, TITLE_MAX, `${at}: "place" ${k + 1}`, errors) ?? '');
    if (errors.length > e0) return null as unknown as Notice;
    return { key: o.key as string, kind: o.kind as NoticeKind, project: o.project as number, resource: res!, id: o.id as number,
      field, child: child ?? null, overwritten, kept, title, place: names };
  });
  if (errors.length) throw invalid(errors.slice(0, 20));
  return out;
}

/**
 * Store notices sent by the caller. Each names a project the caller sees (else 404, as for any record of
 * it) and a record that is, or was, in that project (else 404): nobody plants a notice in a project they
 * do not see, nor about a record of another project. A key already stored by the caller is a replay.
 */
export async function postNotices(ctx: Ctx, notices: readonly Notice[], now: Date = new Date()): Promise<{ accepted: number; replayed: number }> {
  const seen = new Set<number>();
  for (const n of notices) {
    if (!seen.has(n.project)) { await projects.get(ctx, n.project); seen.add(n.project); }
    const where = await projectOfRecord(ctx.store, RESOURCES[n.resource].table, n.id);
    if (where !== n.project) throw new ApiError(404, [`${n.resource} ${n.id} not found in project ${n.project}`]);
    // A client tells only of records it reads, or read until they were deleted (a private record is not its to name: D245).
    if (!(await clientMay(ctx, n.resource, n.id))) throw new ApiError(404, [`${n.resource} ${n.id} not found in project ${n.project}`]);
  }
  let accepted = 0;
  const at = isoSeconds(now);
  // One commit through the store's writer: the change token moves, so no cached page of notices is served stale.
  await ctx.store.write(async (w) => {
    for (const n of notices) {
      const { key, ...body } = n;
      if (await putNotice(w, ctx.caller.id, key, n.project, JSON.stringify(body), at)) accepted++;
    }
  });
  return { accepted, replayed: notices.length - accepted };
}

/**
 * May the caller name or read a notice about this record? The firm: yes (the project was checked). A client:
 * a record it reads now, or one deleted that clients could see when it went (its tombstone's `shown`, D245):
 * most notices are about a deleted record (the deleter is told), and a client may be the deleter.
 */
async function clientMay(ctx: Ctx, resource: ResourceKey, id: number): Promise<boolean> {
  if (ctx.caller.firm) return true;
  if (await visible(ctx, resource, id, false)) return true;
  return goneClientVisible(ctx.store, RESOURCES[resource].table, id);
}

export interface NoticePage {
  readonly cursor: number;
  readonly more: boolean;
  readonly notices: readonly (Omit<Notice, 'key'> & { seq: number; at: string; by: { id: number; name: string } })[];
}

/**
 * Notices after `since` of the projects the caller sees. A client (not of the firm) gets only notices of
 * records it can read now, or could until they were deleted: a private record's existence and values are
 * none of its business (D245).
 */
export async function readNotices(ctx: Ctx, since: number, limit: number): Promise<NoticePage> {
  const rows = await noticesPage(ctx.store, ctx.caller, since, limit + 1);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const notices: NoticePage['notices'][number][] = [];
  for (const r of page) {
    let body: Omit<Notice, 'key'>;
    try { body = JSON.parse(r.body) as Omit<Notice, 'key'>; } catch { continue; }
    if (!(await clientMay(ctx, body.resource, body.id))) continue;
    notices.push({ ...body, seq: Number(r.seq), at: r.at, by: { id: Number(r.person_id), name: `${r.first_name ?? ''} ${r.last_name ?? ''}`.trim() } });
  }
  return { cursor: page.length ? Number(page[page.length - 1].seq) : since, more, notices };
}

export function parseNoticesQuery(since: string | undefined, limit: string | undefined): { since: number; limit: number } {
  if (since !== undefined && !/^\d{1,16}$/.test(since)) throw badRequest('since must be a cursor (digits)');
  if (limit !== undefined && (!/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > 500)) throw badRequest('limit must be 1..500');
  return { since: Number(since ?? 0), limit: limit === undefined ? 200 : Number(limit) };
}
