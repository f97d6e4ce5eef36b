// Positions are dense over what the caller sees (contract §6.2 read with §5.2): a client must not see
// the gaps private lists leave (1, 3, 5 reveals two hidden lists), and a client's moves work in the
// client's positions without disturbing the hidden lists. Firm people see every list, positions 1..n.

import { describe, expect, it } from 'vitest';
import { freshAccount, ids, locId, text, type Harness, type Who } from '../../support/helpers.ts';
import type { XNode } from '../../../shared/codec/in.ts';

let h: Harness;
let pid: number;
freshAccount((a) => { ({ h, pid } = a); });

async function list(name: string, priv = false, who: Who = 'fran'): Promise<number> {
  const r = await h.req(who, 'POST', `/projects/${pid}/todo_lists.xml`, `<todo-list><name>${name}</name><private>${priv}</private></todo-list>`);
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
async function item(listId: number, who: Who = 'fran'): Promise<number> {
  const r = await h.req(who, 'POST', `/todo_lists/${listId}/todo_items.xml`, '<todo-item><content>I</content></todo-item>');
  expect(r.status, r.body).toBe(201);
  return locId(r);
}
const pairs = (n: XNode) => n.children.map((c) => [Number(text(c, 'id')), Number(text(c, 'position'))]);
/** [id, position] of the project's lists, as `who` gets them. */
const seen = async (who: Who) => pairs((await h.req(who, 'GET', `/projects/${pid}/todo_lists.xml`)).xml());
/** move_list exists in the action style only; the resource style orders lists with reorder.xml. */
const move = (who: Who, id: number, to: number, json = false) => json
  ? h.req(who, 'POST', `/todos/move_list/${id}`, JSON.stringify({ to }), { 'content-type': 'application/json', accept: 'application/json' })
  : h.req(who, 'POST', `/todos/move_list/${id}`, `<request><to>${to}</to></request>`);
const position = (r: Awaited<ReturnType<typeof move>>, json: boolean) => (json ? String((r.json() as { position: number }).position) : text(r.xml(), 'position'));
const reorder = (who: Who, xs: number[]) => h.req(who, 'POST', `/projects/${pid}/todo_lists/reorder.xml`,
  `<todo-lists type="array">${xs.map((x) => `<todo-list><id>${x}</id></todo-list>`).join('')}</todo-lists>`);

/** A, C, E public; B, D private: the firm sees 1..5, a client A, C, E. */
async function five(): Promise<Record<'a' | 'b' | 'c' | 'd' | 'e', number>> {
  const a = await list('A'), b = await list('B', true), c = await list('C'), d = await list('D', true), e = await list('E');
  return { a, b, c, d, e };
}

describe('todo list positions per kind of person', () => {
  it('firm people see every list at 1..n; a client sees the visible lists at 1..k, with no gaps, on every route and format', async () => {
    const { a, b, c, d, e } = await five();
    for (const who of ['ada', 'fran', 'finn'] as const) expect(await seen(who)).toEqual([[a, 1], [b, 2], [c, 3], [d, 4], [e, 5]]);
    expect(await seen('cleo')).toEqual([[a, 1], [c, 2], [e, 3]]);
    // the action style, the compatibility route, one list (both styles), the responsible-party view
    expect(pairs((await h.req('cleo', 'GET', `/projects/${pid}/todos/lists`)).xml())).toEqual([[a, 1], [c, 2], [e, 3]]);
    expect(pairs((await h.req('cleo', 'GET', `/todo_lists.xml?project_id=${pid}`)).xml())).toEqual([[a, 1], [c, 2], [e, 3]]);
    expect(text((await h.req('cleo', 'GET', `/todo_lists/${e}.xml`)).xml(), 'position')).toBe('3');
    expect(text((await h.req('cleo', 'GET', `/todos/list/${c}`)).xml(), 'position')).toBe('2');
    expect(text((await h.req('fran', 'GET', `/todo_lists/${e}.xml`)).xml(), 'position')).toBe('5');
    for (const l of [a, b, c, d, e]) await item(l);
    expect(pairs((await h.req('cleo', 'GET', '/todo_lists.xml?responsible_party=')).xml())).toEqual([[a, 1], [c, 2], [e, 3]]);
    expect(pairs((await h.req('fran', 'GET', '/todo_lists.xml?responsible_party=')).xml())).toEqual([[a, 1], [b, 2], [c, 3], [d, 4], [e, 5]]);
    // JSON
    const json = (await h.req('cleo', 'GET', `/projects/${pid}/todo_lists.json`)).json() as { id: number; position: number }[];
    expect(json.map((l) => [l.id, l.position])).toEqual([[a, 1], [c, 2], [e, 3]]);
    expect(((await h.req('cleo', 'GET', `/todo_lists/${e}.json`)).json() as { position: number }).position).toBe(3);
  });

  it("a client's new list is appended at the client's k+1", async () => {
    const { a, c, e } = await five();
    const r = await h.req('cleo', 'POST', `/projects/${pid}/todo_lists.xml`, '<todo-list><name>F</name></todo-list>');
    expect(r.status).toBe(201);
    expect(text(r.xml(), 'position')).toBe('4');
    expect(await seen('cleo')).toEqual([[a, 1], [c, 2], [e, 3], [locId(r), 4]]);
    expect((await seen('fran')).map(([, p]) => p)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("move_list by a client works in the client's positions, clamps to the client's count, and leaves the hidden lists where they were", async () => {
    const { a, b, c, d, e } = await five();
    for (const json of [false, true]) {
      // back to A B C D E
      expect((await reorder('fran', [a, b, c, d, e])).status).toBe(200);
      const toLast = await move('cleo', a, 3, json);
      expect(toLast.status, toLast.body).toBe(200);
      expect(position(toLast, json)).toBe('3');
      expect(await seen('cleo')).toEqual([[c, 1], [e, 2], [a, 3]]);
      // B and D keep their places (2 and 4); the client's lists take the other places in the new order
      expect(await seen('fran')).toEqual([[c, 1], [b, 2], [e, 3], [d, 4], [a, 5]]);

      const clamped = await move('cleo', c, 99, json);
      expect(position(clamped, json)).toBe('3');
      expect(await seen('cleo')).toEqual([[e, 1], [a, 2], [c, 3]]);
      const first = await move('cleo', c, 0, json);
      expect(position(first, json)).toBe('1');
      expect(await seen('cleo')).toEqual([[c, 1], [e, 2], [a, 3]]);
      expect(await seen('fran')).toEqual([[c, 1], [b, 2], [e, 3], [d, 4], [a, 5]]);
    }
  });

  it('move_list by a firm person works over every list (unchanged)', async () => {
    const { a, b, c, d, e } = await five();
    expect(text((await move('fran', a, 4)).xml(), 'position')).toBe('4');
    expect(await seen('fran')).toEqual([[b, 1], [c, 2], [d, 3], [a, 4], [e, 5]]);
    expect(await seen('cleo')).toEqual([[c, 1], [a, 2], [e, 3]]);
    expect(text((await move('ada', e, 99)).xml(), 'position')).toBe('5');
  });

  it("reorder by a client: the listed lists take the client's 1..k, the client's others follow, the hidden lists stay put", async () => {
    const { a, b, c, d, e } = await five();
    const r = await reorder('cleo', [e, c]);
    expect(r.status, r.body).toBe(200);
    expect(pairs(r.xml())).toEqual([[e, 1], [c, 2], [a, 3]]);
    expect(await seen('cleo')).toEqual([[e, 1], [c, 2], [a, 3]]);
    expect(await seen('fran')).toEqual([[e, 1], [b, 2], [c, 3], [d, 4], [a, 5]]);
    // a hidden list's id is not the client's to order
    const hidden = await reorder('cleo', [b]);
    expect(hidden.status).toBe(422);
    expect(await seen('fran')).toEqual([[e, 1], [b, 2], [c, 3], [d, 4], [a, 5]]);
  });

  it('deleting a list closes the gap for everybody', async () => {
    const { a, c, d, e } = await five();
    expect((await h.req('cleo', 'DELETE', `/todo_lists/${c}.xml`)).status).toBe(200);
    expect(await seen('cleo')).toEqual([[a, 1], [e, 2]]);
    expect((await seen('fran')).map(([, p]) => p)).toEqual([1, 2, 3, 4]);
    expect((await h.req('fran', 'DELETE', `/todo_lists/${d}.xml`)).status).toBe(200);
    expect(await seen('cleo')).toEqual([[a, 1], [e, 2]]);
  });
});

describe('todo item positions', () => {
  it('items have no private flag (registry): a client sees every item of a visible list at 1..n, as firm people do', async () => {
    const l = await list('Visible');
    const xs = [await item(l), await item(l, 'cleo'), await item(l)];
    for (const who of ['fran', 'cleo'] as const) {
      const got = (await h.req(who, 'GET', `/todo_lists/${l}/todo_items.xml`)).xml();
      expect(pairs(got)).toEqual(xs.map((x, k) => [x, k + 1]));
    }
    const moved = await h.req('cleo', 'POST', `/todos/move_item/${xs[0]}`, '<request><to>99</to></request>');
    expect(text(moved.xml(), 'position')).toBe('3');
    expect(ids((await h.req('fran', 'GET', `/todo_lists/${l}/todo_items.xml`)).xml())).toEqual([xs[1], xs[2], xs[0]]);
  });
});
