// Bad input of every kind gets a clean 4xx (never a 5xx), and nothing already stored changes.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fx, harness, locId, type Harness } from './helpers.ts';

let h: Harness;
let ids: Awaited<ReturnType<typeof fx>>;
let post = 0, list = 0, item = 0, entry = 0;

/** Every table's rows, to compare before and after. */
async function snapshot(): Promise<string> {
  const out: Record<string, unknown> = {};
  for (const t of ['companies', 'people', 'projects', 'project_members', 'categories', 'posts', 'comments', 'milestones', 'todo_lists', 'todo_items', 'time_entries', 'changes']) {
    out[t] = (await h.store.all(`SELECT * FROM ${t} ORDER BY 1`)).map((r) => ({ ...r }));
  }
  return JSON.stringify(out);
}

beforeAll(async () => {
  h = await harness();
  ids = await fx(h);
  const p = ids.project.alpha;
  post = locId(await h.req('fran', 'POST', `/projects/${p}/posts.xml`, '<post><title>Keep me</title><body>b</body></post>'));
  list = locId(await h.req('fran', 'POST', `/projects/${p}/todo_lists.xml`, '<todo-list><name>Keep</name></todo-list>'));
  item = locId(await h.req('fran', 'POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>Keep</content></todo-item>'));
  entry = locId(await h.req('fran', 'POST', `/projects/${p}/time_entries.xml`, '<time-entry><date>2024-03-04</date><hours>1.5</hours></time-entry>'));
});
afterAll(async () => { await h.close(); });

const SQLISH = "x'); DROP TABLE posts; --";
const UNICODE = 'Zoë 😀 \u202e ﷽';

describe('bad input never changes what is stored', () => {
  const cases: [string, string, () => string, string | Buffer, number[], Record<string, string>?][] = [
    ['malformed XML create', 'POST', () => `/projects/${ids.project.alpha}/posts.xml`, '<post><title>x</post>', [400]],
    ['DOCTYPE / entity expansion', 'POST', () => `/projects/${ids.project.alpha}/posts.xml`, '<!DOCTYPE p [<!ENTITY a "aaaa">]><post><title>&a;</title></post>', [400]],
    ['undefined entity', 'PUT', () => `/posts/${post}.xml`, '<post><title>&bogus;</title></post>', [400]],
    ['two roots', 'PUT', () => `/todo_items/${item}.xml`, '<todo-item/><todo-item/>', [400]],
    ['invalid UTF-8', 'PUT', () => `/todo_items/${item}.xml`, Buffer.from([0x3c, 0x61, 0x3e, 0xff, 0xfe, 0x3c, 0x2f, 0x61, 0x3e]), [400]],
    ['control character reference', 'PUT', () => `/todo_items/${item}.xml`, '<todo-item><content>&#1;</content></todo-item>', [400]],
    ['malformed JSON', 'PUT', () => `/todo_items/${item}.json`, '{"content": ', [400], { 'content-type': 'application/json' }],
    ['wrong types: boolean', 'PUT', () => `/todo_lists/${list}.xml`, '<todo-list><tracked>perhaps</tracked></todo-list>', [422]],
    ['wrong types: hours', 'PUT', () => `/time_entries/${entry}.xml`, '<time-entry><hours>-3</hours></time-entry>', [422]],
    ['wrong types: date', 'PUT', () => `/time_entries/${entry}.xml`, '<time-entry><date>2024-02-30</date></time-entry>', [422]],
    ['wrong types: datetime', 'PUT', () => `/todo_items/${item}.xml`, '<todo-item><due-at>next week</due-at></todo-item>', [422]],
    ['blank required field', 'PUT', () => `/posts/${post}.xml`, '<post><title>   </title></post>', [422]],
    ['over-long name', 'PUT', () => `/todo_lists/${list}.xml`, `<todo-list><name>${'n'.repeat(256)}</name></todo-list>`, [422]],
    ['nested element where a value belongs', 'PUT', () => `/posts/${post}.xml`, '<post><title><b>x</b></title></post>', [422]],
    ['reference to another project', 'PUT', () => `/posts/${post}.xml`, '<post><category-id>999999</category-id></post>', [422]],
    ['responsible party nobody can be', 'PUT', () => `/todo_items/${item}.xml`, '<todo-item><responsible-party>c999999</responsible-party></todo-item>', [422]],
    ['reorder with a foreign id', 'POST', () => `/todo_lists/${list}/todo_items/reorder.xml`, '<todo-items type="array"><todo-item><id>999999</id></todo-item></todo-items>', [422]],
    ['unknown route', 'GET', () => '/projects/1/wormhole.xml', '', [404]],
    ['id that is not an id', 'GET', () => '/posts/1e3.xml', '', [404]],
    ['huge id', 'GET', () => '/posts/99999999999999999999.xml', '', [404]],
    ['comma list on a get-one-message route', 'GET', () => `/posts/${post},${post}.xml`, '', [400]],
    ['bad query form', 'GET', () => '/time_entries/report.xml?from=2024-13-01', '', [400]],
    ['method not accepted', 'PATCH', () => `/posts/${post}.xml`, '<post/>', [405]],
    ['body too large', 'PUT', () => `/posts/${post}.xml`, `<post><title>${'x'.repeat(1024 * 1024)}</title></post>`, [413]],
  ];

  it.each(cases)('%s → clean 4xx', async (_name, method, url, body, want, headers) => {
    const before = await snapshot();
    const r = await h.req('fran', method, url(), body as string, headers);
    expect(want).toContain(r.status);
    expect(r.status).toBeLessThan(500);
    if (r.headers['content-type']?.toString().includes('json')) expect((r.json() as { errors: string[] }).errors.length).toBeGreaterThan(0);
    else expect(r.xml().name).toBe('errors');
    expect(await snapshot()).toBe(before);
  });

  it('SQL-looking strings and unicode are stored and returned verbatim', async () => {
    const r = await h.req('fran', 'POST', `/projects/${ids.project.alpha}/posts.xml`,
      `<post><title>${SQLISH.replace(/'/g, '&apos;')}</title><body>${UNICODE}</body></post>`);
    expect(r.status).toBe(201);
    const back = (await h.req('fran', 'GET', `/posts/${locId(r)}.json`)).json() as { title: string; body: string };
    expect(back).toMatchObject({ title: SQLISH, body: UNICODE });
    // The posts table is still there (the title was not executed as SQL).
    expect(Number((await h.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM posts'))!.n)).toBeGreaterThan(0);
    const q = await h.req('fran', 'GET', `/time_entries/report.xml?subject_id=${encodeURIComponent("1 OR 1=1")}`);
    expect(q.status).toBe(400);
  });
});
