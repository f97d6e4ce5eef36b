// Cross-site request forgery through the action routes (issue #6): a page served from ANOTHER port of
// 127.0.0.1 (same-site, not same-origin) tries every way a page can make the browser send a request to
// the service, after the browser holds the user's Basic credentials for it. The API shows afterwards
// that nothing was deleted or completed.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiCall, projectId, USERS } from './helpers.ts';

let attacker: Server;
let evil = '';

test.beforeAll(async () => {
  // The attacker's page: `/?html=...` answers that HTML (built by the test, one page per way of asking).
  attacker = createServer((req, res) => {
    const html = new URL(req.url ?? '/', 'http://x').searchParams.get('html') ?? '<p>attacker</p>';
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>evil</title>${html}`);
  });
  await new Promise<void>((ok) => attacker.listen(0, '127.0.0.1', ok));
  evil = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});
test.afterAll(async () => { await new Promise((ok) => attacker.close(ok)); });

test.use({ httpCredentials: { username: USERS.fran.user, password: USERS.fran.password } });

interface Item { id: number; completed: boolean }

/** The ways a page makes a request: each gets the victim URL and returns the attacker's HTML. */
const VECTORS: Record<string, (u: string) => string> = {
  img: (u) => `<img src="${u}">`,
  script: (u) => `<script src="${u}"></script>`,
  stylesheet: (u) => `<link rel="stylesheet" href="${u}">`,
  iframe: (u) => `<iframe src="${u}"></iframe>`,
  'location assignment': (u) => `<script>location.href = ${JSON.stringify(u)}</script>`,
  'link click': (u) => `<a id="go" href="${u}">win a prize</a>`,
  'form GET': (u) => `<form id="f" method="GET" action="${u}"></form><script>document.getElementById('f').submit()</script>`,
  'form POST': (u) => `<form id="f" method="POST" action="${u}" enctype="text/plain"><input name="x" value="y"></form><script>document.getElementById('f').submit()</script>`,
  // A no-cors GET carries no Origin header; a POST does (and was refused by the Origin check already).
  'fetch no-cors GET': (u) => `<script>fetch(${JSON.stringify(u)}, { mode: 'no-cors', credentials: 'include' })</script>`,
  'fetch no-cors POST': (u) => `<script>fetch(${JSON.stringify(u)}, { mode: 'no-cors', credentials: 'include', method: 'POST' })</script>`,
};

/**
 * Load the attacker's page for one way of asking and wait until the browser has made the request and
 * it is over. The status is what the service answered (the browser may hide the response from the
 * page, e.g. opaque-response blocking for an <img>; the server's answer is still seen here).
 */
async function state(request: APIRequestContext, id: number): Promise<'gone' | 'completed' | 'untouched'> {
  const r = await request.get(`/todo_items/${id}.json`, { headers: { Authorization: `Basic ${Buffer.from('fran:fran-pass-2').toString('base64')}` } });
  if (r.status() === 404) return 'gone';
  return ((await r.json()) as Item).completed ? 'completed' : 'untouched';
}

const NAVIGATIONS = new Set(['iframe', 'location assignment', 'link click', 'form GET', 'form POST']);

async function attack(page: Page, vector: string, target: string): Promise<number | null> {
  const done = new Promise<number | null>((resolve) => {
    const onEnd = async (r: import('@playwright/test').Request) => {
      if (r.url().split('?')[0] !== target) return; // a GET form adds an empty query
      page.off('requestfinished', onEnd);
      page.off('requestfailed', onEnd);
      resolve((await r.response())?.status() ?? null);
    };
    page.on('requestfinished', onEnd);
    page.on('requestfailed', onEnd);
  });
  await page.goto(`${evil}/?html=${encodeURIComponent(VECTORS[vector](target))}`);
  if (vector === 'link click') await page.click('#go');
  return done;
}

test('a page on another port of 127.0.0.1 cannot delete or complete anything, whatever it uses', async ({ page, request, baseURL }) => {
  const pid = await projectId(request, 'Alpha Ascent');
  const list = await apiCall<{ id: number }>(request, 'fran', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Targets' } });

  // The browser holds the user's Basic credentials for the service: it signed in once, through its own dialog.
  const creds = await page.goto(`${baseURL}/me.xml`);
  expect(creds!.status()).toBe(200);
  expect(await creds!.text()).toContain('<user-name>fran</user-name>');

  for (const vector of Object.keys(VECTORS)) {
    for (const action of ['delete_item', 'complete_item']) {
      const item = await apiCall<Item>(request, 'fran', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: `${vector} ${action}` } });
      const status = await attack(page, vector, `${baseURL}/todos/${action}/${item.id}`);
      // Navigations show the refusal; for subresources the browser may hide the answer from the page.
      expect.soft([vector, action, status]).toEqual([vector, action, NAVIGATIONS.has(vector) ? 403 : status === null ? null : 403]);
      expect.soft([vector, action, await state(request, item.id)]).toEqual([vector, action, 'untouched']);
    }
  }
  // The same browser, from the service's own origin, still works: the check is about who asks.
  const item = await apiCall<Item>(request, 'fran', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'own origin' } });
  const own = await page.goto(`${baseURL}/todos/complete_item/${item.id}`);
  expect(own!.status()).toBe(200);
  expect(await state(request, item.id)).toBe('completed');
});

test('another site cannot frame the UI (clickjacking)', async ({ page, baseURL }) => {
  const loaded = page.waitForResponse((r) => r.url() === `${baseURL}/`);
  await page.goto(`${evil}/?html=${encodeURIComponent(`<iframe id="f" src="${baseURL}/" onload="document.title='framed'"></iframe>`)}`);
  expect((await loaded).status()).toBe(200);
  await expect(page).toHaveTitle('framed');
  // Chromium replaces a document whose frame-ancestors forbid the embedding page by an error page.
  const frame = page.frames().find((f) => f !== page.mainFrame())!;
  expect(frame.url()).not.toBe(`${baseURL}/`);
  await expect(page.frameLocator('#f').getByRole('button', { name: 'Sign in' })).toHaveCount(0);
});
