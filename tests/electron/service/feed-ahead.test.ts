// A feed page asked with `ahead=1` is whole by itself (D348): the records its records reference whose own entry comes later (a
// record's entry moves to its latest change, and every child's change changes its parents: the project, a
// list, a commented record) come with the page, as upserts of their current state, and again at their place.
// Read in small pages from 0 by a firm member and by a client: every reference of every record is a record of
// an earlier page or of the same page, unless the reader cannot see it at all; a client never gets, ahead or
// not, a record it cannot see. Both engines.

import { describe, expect, it } from 'vitest';
import { RESOURCES, type ResourceKey } from '../../../shared/registry.ts';
import { parseJson } from '../../../shared/codec/in.ts';
import { rewriteIds } from '../../../shared/sync/ids.ts';
import { decodeRecord } from '../../../shared/sync/wire.ts';
import { freshAccount, locId, type Account, type Who } from '../../support/helpers.ts';

interface Change { seq: number; resource: ResourceKey; id: number; op: string; record?: unknown }
interface Page { cursor: string; more: boolean; changes: Change[] }

describe('feed pages carry ahead what they reference (D348)', () => {
  let a: Account;
  freshAccount((x) => { a = x; });

  const pages = async (who: Who, limit: number, since = '0', ahead = true): Promise<Page[]> => {
    const out: Page[] = [];
    for (let cursor = since; ;) {
      const r = await a.h.req(who, 'GET', `/sync/changes.json?since=${cursor}&limit=${limit}${ahead ? '&ahead=1' : ''}`);
      expect(r.status, r.body).toBe(200);
      const p = r.json() as Page;
      out.push(p);
      cursor = p.cursor;
      if (!p.more) return out;
    }
  };
  const refs = (c: Change): string[] => {
    const keys: string[] = [];
    const row = decodeRecord(RESOURCES[c.resource], parseJson(JSON.stringify(c.record))!);
    rewriteIds(row, (r, id) => { keys.push(`${r}:${id}`); return undefined; });
    return keys;
  };
  const make = async (who: Who, url: string, body: string) => {
    const r = await a.h.req(who, 'POST', url, body);
    expect(r.status, r.body).toBe(201);
    return locId(r);
  };

  /** Every page's records name only records of earlier pages, of the same page, or none the reader ever gets. */
  const whole = (ps: Page[]): { ahead: number } => {
    const ever = new Set(ps.flatMap((p) => p.changes.map((c) => `${c.resource}:${c.id}`)));
    const seen = new Set<string>();
    let ahead = 0;
    for (const p of ps) {
      for (const c of p.changes) seen.add(`${c.resource}:${c.id}`);
      for (const c of p.changes) {
        if (c.op !== 'upsert') continue;
        if (p.more && c.seq > Number(p.cursor)) ahead++;
        for (const k of refs(c)) if (ever.has(k)) expect(seen.has(k), `${c.resource} ${c.id} names ${k}, which comes on a later page`).toBe(true);
      }
    }
    return { ahead };
  };

  it('a to-do, its comment and its time entry come with their list and project, from cursor 0 and from a cursor', async () => {
    const start = (await pages('fran', 1000)).at(-1)!.cursor;
    const list = await make('fran', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>Ropes</name></todo-list>');
    const item = await make('fran', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>Check knots</content></todo-item>');
    const comment = await make('fran', `/todo_items/${item}/comments.xml`, '<comment><body>Done twice</body></comment>');
    await make('fran', `/todo_items/${item}/time_entries.xml`,
      `<time-entry><person-id>${a.f.person.fran}</person-id><date>2026-11-02</date><hours>1.5</hours></time-entry>`);

    // From that cursor, pages of one change: the comment's page brings its item and the project, whose entries
    // come later (the comment changed them), ahead of their place.
    const since = await pages('fran', 1, start);
    const own = (p: Page, k: string) => p.changes.some((c) => `${c.resource}:${c.id}` === k && c.seq <= Number(p.cursor));
    const at = since.findIndex((p) => own(p, `comment:${comment}`));
    const page = since[at];
    expect(page.more).toBe(true);
    const ahead = page.changes.filter((c) => c.seq > Number(page.cursor)).map((c) => `${c.resource}:${c.id}`);
    expect(ahead).toEqual(expect.arrayContaining([`todoItem:${item}`, `project:${a.pid}`]));
    // …and each of them again at its own place (nothing is left out of the feed for having come ahead).
    for (const k of ahead) expect(since.slice(at + 1).some((p) => own(p, k)), k).toBe(true);
    // The list came on an earlier page (the item's creation changed it before the comment did).
    expect(since.slice(0, at).some((p) => own(p, `todoList:${list}`))).toBe(true);
    whole(since);

    // From 0 in small pages: every page whole by itself; some records did come ahead.
    expect(whole(await pages('fran', 3)).ahead).toBeGreaterThan(0);
    // Without `ahead=1` (a third-party client), a page carries its own entries only, in seq order, the cursor its last.
    for (const p of await pages('fran', 3, '0', false)) {
      const seqs = p.changes.map((c) => c.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      if (p.more) expect(p.cursor).toBe(String(seqs.at(-1)));
    }
    expect((await a.h.req('fran', 'GET', '/sync/changes.json?since=0&ahead=2')).status).toBe(400);
    // The last page (more: false) carries nothing ahead: there is nothing after it.
    const last = (await pages('fran', 1, start)).at(-1)!;
    for (const c of last.changes) expect(c.seq).toBeLessThanOrEqual(Number(last.cursor));
  });

  it("a client's pages are whole too, and never carry a record the client cannot see", async () => {
    const list = await make('fran', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>Hidden</name><private>true</private></todo-list>');
    const item = await make('fran', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>Secret item</content></todo-item>');
    // A public time entry on the private list's item: the client sees the entry, never the item or its list.
    const entry = await make('fran', `/todo_items/${item}/time_entries.xml`,
      `<time-entry><person-id>${a.f.person.fran}</person-id><date>2026-11-02</date><hours>2.0</hours></time-entry>`);
    const post = await make('fran', `/projects/${a.pid}/posts.xml`, '<post><title>Private</title><private>true</private></post>');
    await make('fran', `/posts/${post}/comments.xml`, '<comment><body>inside</body></comment>');
    // Public records the client sees, with a comment that changes its parent after them.
    const open = await make('fran', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>Open</name></todo-list>');
    const task = await make('fran', `/todo_lists/${open}/todo_items.xml`, '<todo-item><content>Public item</content></todo-item>');
    await make('fran', `/todo_items/${task}/comments.xml`, '<comment><body>public</body></comment>');
    const ps = await pages('cleo', 2);
    expect(whole(ps).ahead).toBeGreaterThan(0);
    const got = new Set(ps.flatMap((p) => p.changes.map((c) => `${c.resource}:${c.id}`)));
    for (const k of [`todoList:${list}`, `todoItem:${item}`, `post:${post}`]) expect(got.has(k), k).toBe(false);
    // The entry reaches the client if its API shows it: then without its item, as on its GET.
    const own = await a.h.req('cleo', 'GET', `/time_entries/${entry}.xml`);
    expect(got.has(`timeEntry:${entry}`)).toBe(own.status === 200);
  });
});
