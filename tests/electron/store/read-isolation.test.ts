// What a client reads while another request's write is open (D215): the committed state, never rows
// that write has not committed (and that may roll back). On SQLite the write holds the one connection
// while it awaits; reads then go to the read connection. On PostgreSQL a read takes a pooled connection
// outside the write. The store on a file, as the service runs it.

import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE, fx, harnessOver, heldWrite, locId, seededStore, sqliteInFile, text, type Harness } from '../../support/helpers.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { pgSkipReason } from '../../support/pg.ts';
import type { Store } from '../../../electron/store/types.ts';

const open: Harness[] = [];
afterEach(async () => { for (const h of open.splice(0)) await h.close(); });

/** A seeded store in a file of its own (removed when it closes). */
async function onFile(): Promise<Store> {
  const s = sqliteInFile();
  await importSeed(s, FIXTURE);
  return s;
}

const engines = [
  { name: 'sqlite', skip: '', store: onFile },
  { name: 'postgres', skip: pgSkipReason(), store: () => seededStore('postgres') },
] as const;

describe.each(engines)('reads while another request\'s write is open, on $name', (e) => {
  if (e.skip) {
    it.skip(`skipped: ${e.skip}`, () => undefined);
    return;
  }

  /** The app over a seeded store of the engine, its project Alpha and a public list of it. */
  async function setUp(): Promise<{ h: Harness; alpha: number; listId: number }> {
    const h = await harnessOver(await e.store(), e.name);
    open.push(h);
    const alpha = (await fx(h)).project.alpha;
    const l = await h.req('ada', 'POST', `/projects/${alpha}/todo_lists.xml`, '<todo-list><name>Isolation</name></todo-list>');
    expect(l.status).toBe(201);
    return { h, alpha, listId: locId(l) };
  }

  it('a todo item, its list and a new item of the write are answered as committed, XML and JSON; then the commit shows', async () => {
    const { h, alpha, listId } = await setUp();
    const made = await h.req('ada', 'POST', `/todo_lists/${listId}/todo_items.xml`, '<todo-item><content>Committed text</content></todo-item>');
    expect(made.status).toBe(201);
    const id = locId(made);
    const list = `/todo_lists/${listId}/todo_items`;
    const before = (await h.req('ada', 'GET', `${list}.json`)).json() as { id: number }[];

    const { rollBack } = await heldWrite(h.store, async (w) => {
      await w.update('todo_items', id, { content: 'NEVER COMMITTED' }, alpha);
      await w.insert('todo_items', { content: 'Never committed either', todo_list_id: listId, project_id: alpha, position: 999, completed: 0 }, alpha);
    });
    try {
      const one = await h.req('ada', 'GET', `/todo_items/${id}.xml`);
      expect(one.status).toBe(200);
      expect(text(one.xml(), 'content')).toBe('Committed text');
      expect(((await h.req('ada', 'GET', `/todo_items/${id}.json`)).json() as { content: string }).content).toBe('Committed text');
      const xmlList = (await h.req('ada', 'GET', `${list}.xml`)).body;
      expect(xmlList).toContain('Committed text');
      expect(xmlList).not.toContain('ever committed');
      const jsonList = (await h.req('ada', 'GET', `${list}.json`)).json() as { id: number; content: string }[];
      expect(jsonList.map((r) => r.id)).toEqual(before.map((r) => r.id));
      expect(jsonList.find((r) => r.id === id)!.content).toBe('Committed text');
    } finally {
      await rollBack();
    }
    expect(text((await h.req('ada', 'GET', `/todo_items/${id}.xml`)).xml(), 'content')).toBe('Committed text');
    expect((await h.req('ada', 'PUT', `/todo_items/${id}.xml`, '<todo-item><content>Edited</content></todo-item>')).status).toBe(200);
    expect(text((await h.req('ada', 'GET', `/todo_items/${id}.xml`)).xml(), 'content')).toBe('Edited');
  });

  it('a create with an Idempotency-Key and its retry, both sent while a write is open: one item, the key kept after that write rolls back (D217)', async () => {
    const { h, alpha, listId } = await setUp();
    const body = '<todo-item><content>Exactly once</content></todo-item>';
    const post = () => h.req('ada', 'POST', `/todo_lists/${listId}/todo_items.xml`, body, { 'Idempotency-Key': 'd217-key' });
    const { rollBack } = await heldWrite(h.store, (w) => w.update('projects', alpha, { name: 'NEVER COMMITTED' }));
    let first: ReturnType<typeof post>;
    let retry: ReturnType<typeof post>;
    try {
      first = post();
      await new Promise((r) => setImmediate(r));
      retry = post();
      await new Promise((r) => setImmediate(r));
    } finally {
      await rollBack();
    }
    const answers = [await first!, await retry!];
    // Which of the two claims the key is the race of their writes (D340: the key is claimed in the write's own
    // transaction; under load the retry's may come first): one creates, the other is its replay or "in progress".
    const made1 = answers.find((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
    expect(made1).toBeDefined();
    const other = answers.find((a) => a !== made1)!;
    expect([201, 409]).toContain(other.status); // a replay, or "in progress"
    if (other.status === 201) expect(other.headers.location).toBe(made1!.headers.location);
    const again = await post(); // the key survived the other write's rollback: a replay
    expect(again.status).toBe(201);
    expect(again.headers.location).toBe(made1!.headers.location);
    const made = await h.store.all('SELECT id FROM todo_items WHERE todo_list_id = ? AND content = ?', [listId, 'Exactly once']);
    expect(made).toHaveLength(1);
  });

  it('a write queued behind the open one still commits, and its own reads see its rows', async () => {
    const { h, alpha, listId } = await setUp();
    const { rollBack } = await heldWrite(h.store, (w) => w.update('projects', alpha, { name: 'NEVER COMMITTED' }));
    let queued: Promise<unknown>;
    try {
      expect(text((await h.req('ada', 'GET', `/projects/${alpha}.xml`)).xml(), 'name')).not.toBe('NEVER COMMITTED');
      queued = h.req('ada', 'POST', `/todo_lists/${listId}/todo_items.xml`, '<todo-item><content>Queued</content></todo-item>');
    } finally {
      await rollBack();
    }
    const r = (await queued!) as { status: number; headers: Record<string, unknown> };
    expect(r.status).toBe(201);
    const made = await h.req('ada', 'GET', String(r.headers.location).replace(/^https?:\/\/[^/]+/, ''));
    expect(text(made.xml(), 'content')).toBe('Queued');
  });
});
