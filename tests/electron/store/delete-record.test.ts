// Relations in the registry (issue #30, D320–D322): the links are complete, the derived relations say
// what the contract says, and one deleteRecord removes exactly a record's dependents on both engines
// (this file runs in the `node` and the `pg` projects). Services and sync delete through it only.

import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  column, COMMENT_PARENTS, COMMENTABLE_TYPES, commentableType, commentParent, dependentsOf, field, parentOf, refResource,
  REFERENCE_COLUMNS, RESOURCES, TABLE_ORDER, type Resource, type ResourceKey,
} from '../../../shared/registry.ts';
import { deleteRecord } from '../../../electron/store/delete-record.ts';
import type { Row, Store } from '../../../electron/store/types.ts';
import { harness, seededStore, type Harness } from '../../support/helpers.ts';
import { ROUTES, type RecordRoutes, type RoutedKey } from '../../../shared/routes.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const all = Object.values(RESOURCES) as Resource[];

describe('the registry knows every relation', () => {
  it('every stored integer `*-id` field and internal `*_id` column has a link, and every link is a stored column', () => {
    for (const r of all) {
      const linked = new Set((r.links ?? []).map((l) => l.column));
      const refs = [
        ...r.fields.filter((f) => f.stored && f.type === 'integer' && f.name.endsWith('-id')).map((f) => column(f.name)),
        ...(r.internal ?? []).map((c) => c.column).filter((c) => c.endsWith('_id')),
      ];
      for (const c of refs) expect(linked.has(c), `${r.key}.${c} has no link`).toBe(true);
      const stored = new Set([...r.fields.filter((f) => f.stored).map((f) => column(f.name)), ...(r.internal ?? []).map((c) => c.column)]);
      for (const l of r.links ?? []) expect(stored.has(l.column), `${r.key}.${l.column} is not stored`).toBe(true);
    }
  });

  it('a column points at the same thing in every table, and parents come before children in TABLE_ORDER', () => {
    for (const r of all) {
      for (const l of r.links ?? []) {
        expect(REFERENCE_COLUMNS[l.column], `${r.key}.${l.column}`).toBe(l.to);
        if (l.to !== 'commentable' && l.to !== 'party') expect(TABLE_ORDER.indexOf(l.to), `${r.key} -> ${l.to}`).toBeLessThan(TABLE_ORDER.indexOf(r.key));
      }
    }
    expect([...TABLE_ORDER].sort()).toEqual(Object.keys(RESOURCES).sort());
  });

  it('every comment parent is a resource with comments, and the commentable-type field allows exactly them', () => {
    expect(field(RESOURCES.comment, 'commentable-type').values).toEqual(COMMENTABLE_TYPES);
    for (const t of COMMENTABLE_TYPES) {
      const res = COMMENT_PARENTS[t];
      expect(RESOURCES[res].key).toBe(res);
      expect(commentableType(res)).toBe(t);
      expect(commentParent(t)).toBe(res);
      expect(RESOURCES[res].fields.some((f) => f.name === 'comments-count'), `${res} counts its comments`).toBe(true);
    }
    for (const bad of ['Project', 'toString', '__proto__', 'post', '', null, 3]) expect(commentParent(bad)).toBeNull();
  });

  it('every record but a project, a person and a company lives under one parent', () => {
    const place = (res: ResourceKey, row: Row) => { const p = parentOf(res, row); return p ? `${p.res}:${p.id}` : null; };
    expect(place('todoItem', { todo_list_id: 4, project_id: 1 })).toBe('todoList:4');
    expect(place('comment', { commentable_type: 'TodoItem', commentable_id: 9, project_id: 1 })).toBe('todoItem:9');
    expect(place('comment', { commentable_type: 'Nope', commentable_id: 9, project_id: 1 })).toBeNull();
    for (const k of ['category', 'post', 'milestone', 'todoList', 'timeEntry'] as const) expect(place(k, { project_id: 1 })).toBe('project:1');
    for (const k of ['project', 'person', 'company'] as const) expect(place(k, { project_id: 1, company_id: 2 })).toBeNull();
  });

  it('references as sync rewrites them: fixed columns, a comment\'s parent and a responsible party by their type', () => {
    expect(refResource('todo_item_id', {})).toBe('todoItem');
    expect(refResource('author_id', {})).toBe('person');
    expect(refResource('commentable_id', { commentable_type: 'Milestone' })).toBe('milestone');
    expect(refResource('responsible_party_id', { responsible_party_type: 'Company' })).toBe('company');
    expect(refResource('responsible_party_id', { responsible_party_type: 'Robot' })).toBeNull();
    for (const c of ['title', 'position', 'id', 'time_zone_id', 'constructor']) expect(refResource(c, {})).toBeNull();
  });

  it('what a delete takes: the contract\'s cascades (§8.5, §8.7, §8.9, §8.13)', () => {
    const say = (k: ResourceKey) => {
      const d = dependentsOf(k);
      return { cascade: d.cascade.map((x) => `${x.res}.${x.link.column}${x.type ? `=${x.type}` : ''}`), setNull: d.setNull.map((x) => `${x.res}.${x.link.column}`) };
    };
    expect(say('project').cascade).toEqual(['timeEntry.project_id', 'comment.project_id', 'todoItem.project_id', 'todoList.project_id', 'post.project_id', 'milestone.project_id', 'category.project_id']);
    expect(say('todoList')).toEqual({ cascade: ['todoItem.todo_list_id'], setNull: [] });
    expect(say('todoItem')).toEqual({ cascade: ['comment.commentable_id=TodoItem'], setNull: ['timeEntry.todo_item_id'] });
    expect(say('post')).toEqual({ cascade: ['comment.commentable_id=Post'], setNull: [] });
    expect(say('milestone')).toEqual({ cascade: ['comment.commentable_id=Milestone'], setNull: ['post.milestone_id', 'todoList.milestone_id'] });
    expect(say('category')).toEqual({ cascade: [], setNull: ['post.category_id'] });
    for (const k of ['comment', 'timeEntry', 'person', 'company'] as const) expect(say(k)).toEqual({ cascade: [], setNull: [] });
  });
});

// ---- deleteRecord on a store ------------------------------------------------------------------

type Graph = Record<string, number>;

/** A project of its own with one of everything, linked every way (the fixture's records are the control). */
async function build(store: Store): Promise<Graph> {
  const g: Graph = {};
  const person = Number((await store.get<{ id: number }>('SELECT MIN(id) AS id FROM people'))!.id);
  const company = Number((await store.get<{ id: number }>('SELECT MIN(id) AS id FROM companies'))!.id);
  await store.write(async (w) => {
    const P = g.P = await w.insert('projects', { name: 'Relations', status: 'active', company_id: company, start_page: 'log', show_writeboards: 0, show_announcement: 0, created_on: '2030-01-01', last_changed_on: w.now });
    await w.run('INSERT INTO project_members (project_id, person_id) VALUES (?, ?)', [P, person]);
    g.C = await w.insert('categories', { name: 'C', type: 'post', project_id: P }, P);
    g.C2 = await w.insert('categories', { name: 'C2', type: 'post', project_id: P }, P);
    g.M = await w.insert('milestones', { title: 'M', deadline: '2030-02-01', project_id: P, private: 0, completed: 0, created_on: w.now, creator_id: person, wants_notification: 0 }, P);
    const post = (title: string, category: number | null, milestone: number | null) =>
      w.insert('posts', { title, body: '', extended_body: '', category_id: category, milestone_id: milestone, use_textile: 0, private: 0, posted_on: w.now, project_id: P, author_id: person }, P);
    g.X = await post('X', g.C, g.M);
    g.Y = await post('Y', null, null);
    const list = (name: string, position: number, milestone: number | null) =>
      w.insert('todo_lists', { name, description: '', position, private: 0, project_id: P, tracked: 0, milestone_id: milestone }, P);
    g.L = await list('L', 1, g.M);
    g.L2 = await list('L2', 2, null);
    const item = (content: string, listId: number, position: number) =>
      w.insert('todo_items', { content, todo_list_id: listId, project_id: P, position, completed: 0, created_at: w.now, creator_id: person, updated_at: w.now }, P);
    g.I1 = await item('I1', g.L, 1);
    g.I2 = await item('I2', g.L, 2);
    g.I3 = await item('I3', g.L2, 1);
    const comment = (type: string, parent: number) =>
      w.insert('comments', { body: 'c', commentable_type: type, commentable_id: parent, author_id: person, created_at: w.now, private: 0, project_id: P }, P);
    g.cX = await comment('Post', g.X);
    g.cY = await comment('Post', g.Y);
    g.cM = await comment('Milestone', g.M);
    g.cI1 = await comment('TodoItem', g.I1);
    g.cI3 = await comment('TodoItem', g.I3);
    const entry = (itemId: number | null) =>
      w.insert('time_entries', { project_id: P, person_id: person, date: '2030-01-02', hours: 1, description: '', private: 0, todo_item_id: itemId }, P);
    g.T1 = await entry(g.I1);
    g.T2 = await entry(null);
    g.T3 = await entry(g.I3);
  });
  return g;
}

const LINKED = ['project_id', 'todo_list_id', 'commentable_type', 'commentable_id', 'category_id', 'milestone_id', 'todo_item_id'];

/** Every record of every resource table with its link columns, as `table:id -> values`. */
async function snapshot(store: Store): Promise<Map<string, Row>> {
  const out = new Map<string, Row>();
  for (const k of TABLE_ORDER) {
    const R = RESOURCES[k] as Resource;
    const cols = LINKED.filter((c) => (R.links ?? []).some((l) => l.column === c) || c === 'commentable_type' && k === 'comment');
    for (const r of await store.all(`SELECT id${cols.map((c) => `, ${c}`).join('')} FROM ${R.table}`)) {
      out.set(`${R.table}:${r.id}`, Object.fromEntries(cols.map((c) => [c, r[c] === null ? null : c === 'commentable_type' ? r[c] : Number(r[c])])));
    }
  }
  return out;
}

const members = async (store: Store, p: number) => Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM project_members WHERE project_id = ?', [p]))!.n);
const tombstones = async (store: Store) =>
  new Set((await store.all<{ tbl: string; record_id: number }>("SELECT tbl, record_id FROM changes WHERE op = 'delete' AND person_id IS NULL")).map((r) => `${r.tbl}:${Number(r.record_id)}`));

const T: Record<string, string> = {
  P: 'projects', C: 'categories', C2: 'categories', M: 'milestones', X: 'posts', Y: 'posts', L: 'todo_lists', L2: 'todo_lists',
  I1: 'todo_items', I2: 'todo_items', I3: 'todo_items', cX: 'comments', cY: 'comments', cM: 'comments', cI1: 'comments', cI3: 'comments',
  T1: 'time_entries', T2: 'time_entries', T3: 'time_entries',
};

/** Each delete, what must go with it, and the references that must be emptied (hand-written: the contract). */
const CASES: { res: ResourceKey; id: string; gone: string[]; nulled: [string, string][] }[] = [
  { res: 'comment', id: 'cX', gone: ['cX'], nulled: [] },
  { res: 'timeEntry', id: 'T1', gone: ['T1'], nulled: [] },
  { res: 'todoItem', id: 'I1', gone: ['I1', 'cI1'], nulled: [['T1', 'todo_item_id']] },
  { res: 'todoList', id: 'L', gone: ['L', 'I1', 'I2', 'cI1'], nulled: [['T1', 'todo_item_id']] },
  { res: 'post', id: 'X', gone: ['X', 'cX'], nulled: [] },
  { res: 'milestone', id: 'M', gone: ['M', 'cM'], nulled: [['X', 'milestone_id'], ['L', 'milestone_id']] },
  { res: 'category', id: 'C', gone: ['C'], nulled: [['X', 'category_id']] },
  { res: 'project', id: 'P', gone: Object.keys(T), nulled: [] },
];

describe.each(CASES)('deleteRecord($res): exactly its dependents go, the rest stays', ({ res, id, gone, nulled }) => {
  let store: Store;
  let g: Graph;
  beforeAll(async () => { store = await seededStore(); g = await build(store); });
  afterAll(async () => { await store.close(); });

  it('removes the record and its dependents, empties the references, touches nothing else; a tombstone each', async () => {
    const before = await snapshot(store);
    const tombsBefore = await tombstones(store);
    const visited: string[] = [];
    const row = await store.write((w) => deleteRecord<string>(w, res, g[id], {
      enter: (r, rid, _row, parent) => { visited.push(`${parent ?? '-'}>${RESOURCES[r].table}:${rid}`); return `${RESOURCES[r].table}:${rid}`; },
    }));
    expect(Number(row?.id)).toBe(g[id]);
    const expected = new Map(before);
    for (const k of gone) expect(expected.delete(`${T[k]}:${g[k]}`), k).toBe(true);
    for (const [k, col] of nulled) expected.set(`${T[k]}:${g[k]}`, { ...expected.get(`${T[k]}:${g[k]}`), [col]: null });
    expect(await snapshot(store)).toEqual(expected);
    // the visitor saw each removed record once, under the record it went with
    expect(visited.map((v) => v.split('>')[1]).sort()).toEqual(gone.map((k) => `${T[k]}:${g[k]}`).sort());
    expect(visited[0]).toBe(`->${T[id]}:${g[id]}`);
    const tombs = [...await tombstones(store)].filter((t) => !tombsBefore.has(t));
    expect(tombs.sort()).toEqual(gone.map((k) => `${T[k]}:${g[k]}`).sort());
    expect(await members(store, g.P)).toBe(res === 'project' ? 0 : 1);
    // once gone, again is nothing
    expect(await store.write((w) => deleteRecord(w, res, g[id]))).toBeUndefined();
  });
});

describe('services and sync delete through deleteRecord only (issue #30)', () => {
  it('no Writer remove outside electron/store/ but the project guard\'s pass-through', async () => {
    const files = (await readdir(`${root}/electron`, { recursive: true })).filter((f) => f.endsWith('.ts') && !f.startsWith('store/'));
    const removes = /\b(w|writer|tx|db)\.remove\(|\.remove\(\s*(['"`]|R\.table|RESOURCES)/;
    const found: string[] = [];
    for (const f of files) {
      (await readFile(`${root}/electron/${f}`, 'utf8')).split('\n').forEach((line, i) => { if (removes.test(line)) found.push(`electron/${f}:${i + 1}`); });
    }
    expect(removes.test("await w.remove('comments', Number(c.id), pid);")).toBe(true);
    expect(removes.test('await w.remove(R.table, id, row.project_id);')).toBe(true);
    expect(found).toEqual([]);
  });
});

describe('the record routes of shared/routes.ts are the server\'s (issue #30, D322)', () => {
  let h: Harness;
  beforeAll(async () => { h = await harness(); });
  afterAll(async () => { await h.close(); });

  it.each(Object.keys(ROUTES) as RoutedKey[])('%s: show and list answer 200; create, update and delete reach their handlers', async (res) => {
    const g = await build(h.store);
    const routes: RecordRoutes = ROUTES[res];
    const [id, parent, type] = {
      project: [g.P, 0, undefined], category: [g.C2, g.P, undefined], post: [g.Y, g.P, undefined], comment: [g.cY, g.Y, 'Post'],
      milestone: [g.M, g.P, undefined], todoList: [g.L2, g.P, undefined], todoItem: [g.I2, g.L, undefined], timeEntry: [g.T2, g.P, undefined],
    }[res] as [number, number, string | undefined];
    for (const ext of ['.xml', '.json'] as const) {
      if (routes.show) expect((await h.req('ada', 'GET', routes.show(id, ext))).status, routes.show(id, ext)).toBe(200);
      expect((await h.req('ada', 'GET', routes.list(parent, ext, type))).status, routes.list(parent, ext, type)).toBe(200);
    }
    const ext = res === 'milestone' ? '' : '.xml';
    // An empty record: the route exists and takes the method (a 4xx of its own, never 404 or 405).
    const refused = async (method: string, path: string) => {
      const s = (await h.req('ada', method, path, method === 'DELETE' ? undefined : '<x/>', method === 'DELETE' ? {} : { 'content-type': 'application/xml' })).status;
      expect([404, 405], `${method} ${path}: ${s}`).not.toContain(s);
    };
    await refused('POST', routes.create(parent, ext, type));
    const u = routes.update(id, ext);
    await refused(u.method, u.path);
    const d = routes.remove?.(id, ext);
    if (d) await refused(d.method, d.path);
    else expect(res).toBe('project');
  });
});
