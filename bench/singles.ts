// node bench/singles.ts --data-dir DIR [--baseline TREE] [--rounds N] [--check]
// In-process CPU time of the single-record reads of the mixed workload (bench/mixed.ts): the service call,
// redaction and the XML answer with its byte length (what a route does after authentication), per kind of
// record, for an administrator, a firm person and a client, each over different records (a random sample).
// With --baseline (the root of another checkout, e.g. `git worktree add --detach /tmp/base main` with a
// node_modules link), both trees run in the same process, interleaved, over the same data file: the figure
// per (tree, read) is the minimum over rounds of the mean CPU µs per call (the machine is shared). --check
// compares both trees' XML and JSON answers (or error status) for every sampled record and caller, byte for byte.
// --baseline-data-dir: a copy of the data for the baseline, when the trees' schemas differ (an index: each
// tree brings the file in line with its registry when it opens it).
// A tool for finding what costs; end-to-end figures come from bench/routes.ts and bench/api.ts.

import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';

const HERE = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, baseline: { type: 'string' }, 'baseline-data-dir': { type: 'string' }, rounds: { type: 'string' }, check: { type: 'boolean' }, n: { type: 'string' }, only: { type: 'string' }, who: { type: 'string' } } });
const dir = values['data-dir'] ?? '/tmp/prof-data';
const ROUNDS = Number(values.rounds ?? 12);
const N = Number(values.n ?? 300);

interface Caller { id: number; companyId: number; firm: boolean; admin: boolean; name: string }
type Row = Record<string, unknown>;
interface Tree {
  name: string;
  reads: Record<string, (ctx: { store: unknown; caller: Caller }, id: number) => Promise<{ row: Row; resource: unknown; me?: boolean }>>;
  answer: (ctx: { store: unknown; caller: Caller }, one: { row: Row; resource: unknown; me?: boolean }, json: boolean) => Promise<string>;
}

async function load(root: string, name: string, dir: string): Promise<Tree> {
  const m = (p: string) => import(join(root, p));
  const { SqliteStore } = await m('electron/store/sqlite.ts');
  const { DB_FILE } = await m('electron/server.ts');
  const { RESOURCES } = await m('shared/registry.ts');
  const { redact } = await m('electron/service/redact.ts');
  const { render } = await m('electron/http/api.ts');
  const svc = {
    item: await m('electron/service/todo-items.ts'), post: await m('electron/service/posts.ts'), entry: await m('electron/service/time-entries.ts'),
    comment: await m('electron/service/comments.ts'), dir: await m('electron/service/directory.ts'), project: await m('electron/service/projects.ts'),
    category: await m('electron/service/categories.ts'), list: await m('electron/service/todo-lists.ts'),
  };
  const store = new SqliteStore(join(dir, DB_FILE));
  const one = (resource: unknown) => (f: (ctx: any, id: number) => Promise<Row>) => async (ctx: any, id: number) => ({ row: await f(ctx, id), resource });
  const reads: Tree['reads'] = {
    'todo item': one(RESOURCES.todoItem)(svc.item.get), post: one(RESOURCES.post)(svc.post.get), 'time entry': one(RESOURCES.timeEntry)(svc.entry.get),
    comment: one(RESOURCES.comment)(svc.comment.get), person: one(RESOURCES.person)(svc.dir.person),
    me: async (ctx) => ({ row: await svc.dir.me(ctx), resource: RESOURCES.person, me: true }),
    project: one(RESOURCES.project)(svc.project.get), company: one(RESOURCES.company)(svc.dir.company),
    category: one(RESOURCES.category)(svc.category.get), 'todo list (bare)': one(RESOURCES.todoList)(svc.list.getBare),
  };
  return {
    name,
    reads: Object.fromEntries(Object.entries(reads).map(([k, f]) => [k, (ctx: any, id: number) => f({ ...ctx, store }, id)])),
    async answer(ctx, a, json) {
      const c = { ...ctx, store };
      await redact(c, a.resource, [a.row]);
      const out = render(ctx.caller, { kind: 'one', resource: a.resource, row: a.row, me: a.me }, json);
      Buffer.byteLength(out.body);
      return out.body;
    },
  };
}

const trees = [await load(HERE, 'this tree', dir)];
if (values.baseline) trees.push(await load(resolve(values.baseline), 'baseline', values['baseline-data-dir'] ?? dir));

// ids: a sample of every table, the same for both trees
const { DatabaseSync } = await import('node:sqlite');
const db = new DatabaseSync(join(dir, 'bivouac.sqlite'), { readOnly: true });
const ids = (t: string) => (db.prepare(`SELECT id FROM ${t} ORDER BY random() LIMIT 2000`).all() as { id: number }[]).map((r) => Number(r.id));
const pools: Record<string, number[]> = {
  'todo item': ids('todo_items'), post: ids('posts'), 'time entry': ids('time_entries'), comment: ids('comments'), person: ids('people'), me: [0],
  project: ids('projects'), company: ids('companies'), category: ids('categories'), 'todo list (bare)': ids('todo_lists'),
};
const person = (sql: string): Caller => {
  const r = db.prepare(`SELECT p.id, p.company_id, p.administrator, c.firm, p.first_name FROM people p JOIN companies c ON c.id = p.company_id WHERE ${sql} ORDER BY p.id LIMIT 1`).get() as Row;
  return { id: Number(r.id), companyId: Number(r.company_id), admin: Number(r.administrator) === 1, firm: Number(r.firm) === 1, name: String(r.first_name) };
};
const callers: Record<string, Caller> = {
  admin: person('p.administrator = 1 AND c.firm = 1'), firm: person('COALESCE(p.administrator, 0) = 0 AND c.firm = 1'), client: person('c.firm = 0'),
};
const whos = values.who ? values.who.split(',') : ['admin', 'client'];
const kinds = Object.keys(pools).filter((k) => !values.only || values.only.split(',').includes(k));

async function answerOf(t: Tree, kind: string, caller: Caller, id: number, json: boolean): Promise<string> {
  try { return await t.answer({ store: null, caller }, await t.reads[kind]({ store: null, caller }, id), json); }
  catch (e) { return `error ${(e as { status?: number }).status ?? String(e)}`; }
}

if (values.check && trees.length === 2) {
  let n = 0, bad = 0;
  for (const kind of kinds) for (const [who, caller] of Object.entries(callers)) for (const id of pools[kind]) for (const json of [false, true]) {
    const [a, b] = [await answerOf(trees[0], kind, caller, id, json), await answerOf(trees[1], kind, caller, id, json)];
    n++;
    if (a !== b) { bad++; if (bad < 5) console.log(`DIFFERENT ${kind} ${id} as ${who} ${json ? 'json' : 'xml'}:\n${a}\n---\n${b}`); }
  }
  console.log(`check: ${n} answers compared, ${bad} different`);
}

// Timed reads are of records the caller sees (a 404 costs an Error with its stack, the same in both trees).
const seen = new Map<string, number[]>();
for (const kind of kinds) for (const who of whos) {
  const ok: number[] = [];
  for (const id of pools[kind]) if (!(await answerOf(trees[0], kind, callers[who], id, false)).startsWith('error ')) ok.push(id);
  seen.set(`${kind}\u0000${who}`, ok.length ? ok : pools[kind]);
}
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
const best = new Map<string, number>();
const load0 = loadavg();
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? [...trees].reverse() : trees;
  for (const kind of kinds) for (const who of whos) for (const t of order) {
    const caller = callers[who];
    const pool = seen.get(`${kind}\u0000${who}`)!;
    const run = async (k: number) => {
      const id = kind === 'me' ? 0 : pool[k % pool.length];
      try { await t.answer({ store: null, caller }, await t.reads[kind]({ store: null, caller }, id), false); } catch { /* not visible: 404 */ }
    };
    for (let k = 0; k < 20; k++) await run(k);
    const c0 = cpu();
    for (let k = 0; k < N; k++) await run(round * N + k);
    const us = (cpu() - c0) / N;
    const key = `${kind}\u0000${who}\u0000${t.name}`;
    best.set(key, Math.min(best.get(key) ?? Infinity, us));
  }
}
const fmt = (x: number) => x.toFixed(1).padStart(7);
console.log(`load average before ${load0.map((x) => x.toFixed(2)).join(' ')}, after ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${ROUNDS} rounds of ${N} calls, min of rounds, CPU µs per call`);
console.log(`${'read'.padEnd(18)} ${'caller'.padEnd(7)} ${trees.map((t) => t.name.padStart(10)).join(' ')}${trees.length === 2 ? '   ratio' : ''}`);
for (const kind of kinds) for (const who of whos) {
  const v = trees.map((t) => best.get(`${kind}\u0000${who}\u0000${t.name}`)!);
  console.log(`${kind.padEnd(18)} ${who.padEnd(7)} ${v.map((x) => fmt(x).padStart(10)).join(' ')}${v.length === 2 ? `   ${(v[0] / v[1]).toFixed(2)}` : ''}`);
}
