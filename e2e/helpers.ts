import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';

export const USERS = {
  ada: { user: 'ada', password: 'ada-pass-1' },
  fran: { user: 'fran', password: 'fran-pass-2' },
  cleo: { user: 'cleo', password: 'cleo-pass-4' },
} as const;
export type Who = keyof typeof USERS;

const auth = (who: Who) => `Basic ${Buffer.from(`${USERS[who].user}:${USERS[who].password}`).toString('base64')}`;

/** Call the public JSON API directly (test setup only; the UI is what is tested). */
export async function apiCall<T = unknown>(request: APIRequestContext, who: Who, method: string, path: string, body?: unknown): Promise<T> {
  const r = await request.fetch(path, {
    method, headers: { Authorization: auth(who), Accept: 'application/json', ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    data: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok()) throw new Error(`${method} ${path}: ${r.status()} ${await r.text()}`);
  const t = await r.text();
  return (t ? JSON.parse(t) : null) as T;
}

/** A fresh project (admin Ada creates it; she is its only member). */
export async function newProject(request: APIRequestContext, name: string): Promise<number> {
  const p = await apiCall<{ id: number }>(request, 'ada', 'POST', '/projects.json', { project: { name } });
  return p.id;
}

export async function projectId(request: APIRequestContext, name: string): Promise<number> {
  const ps = await apiCall<{ id: number; name: string }[]>(request, 'ada', 'GET', '/projects.json');
  return ps.find((p) => p.name === name)!.id;
}

export async function signIn(page: Page, who: Who, hash = ''): Promise<void> {
  await page.goto(`/${hash}`);
  await page.getByLabel('User name').fill(USERS[who].user);
  await page.getByLabel('Password').fill(USERS[who].password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible();
}

export async function openBoard(page: Page, pid: number, view: 'todos' | 'messages' | 'milestones' | 'time' | 'report'): Promise<void> {
  await page.evaluate(([p, v]) => { window.location.hash = `#/projects/${p}/${v}`; }, [pid, view] as const);
  await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/${view}`));
}

/** Wait until no request is in flight (the header's progress bar is off). */
export async function settled(page: Page): Promise<void> {
  await expect(page.locator('.progress.on')).toHaveCount(0);
}

export async function screen(page: Page, name: string): Promise<void> {
  mkdirSync('test-results/screens', { recursive: true });
  await settled(page);
  await page.screenshot({ path: `test-results/screens/${name}.png` });
}

export const uniq = (s: string): string => `${s} ${Date.now().toString(36).slice(-4)}`;

/**
 * A new project with something on every board, made by ada: a private list "Approach" with "Late permit"
 * (overdue, ada's) and "Packed" (done), a private textile post "Weather window" in the category "Status",
 * 2 hours on 2017-05-02, and the milestones "Hut reservation" (late, ada's, with a comment, "Approach" linked to it) and
 * "Summit window" (upcoming). Returns the project's id.
 */
export async function seedBoards(request: APIRequestContext, name: string): Promise<number> {
  const me = await apiCall<{ id: number }>(request, 'ada', 'GET', '/me.json');
  const pid = await newProject(request, name);
  const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Approach', private: true } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Late permit', due_at: '2020-01-15', responsible_party: String(me.id) } });
  const done = await apiCall<{ id: number }>(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Packed' } });
  await apiCall(request, 'ada', 'PUT', `/todo_items/${done.id}/complete.json`);
  const cat = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/categories.json`, { category: { name: 'Status', type: 'post' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Weather window', body: 'Go *early*:\n\n* rope\n* helmet', category_id: cat.id, private: true, use_textile: true } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: '2017-05-02', hours: '2.0', person_id: me.id, description: 'Recce' } });
  const [ms] = await apiCall<{ id: number }[]>(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Hut reservation', deadline: '2020-02-01', responsible_party: String(me.id) } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Summit window', deadline: '2099-07-01' } });
  await apiCall(request, 'ada', 'PUT', `/todo_lists/${l.id}.json`, { todo_list: { milestone_id: ms.id } });
  await apiCall(request, 'ada', 'POST', `/milestones/${ms.id}/comments.json`, { comment: { body: 'Booked for four.' } });
  return pid;
}

/**
 * Walks the boards of a project made by seedBoards (signed in, the project chosen), calling `check` at each
 * stop once it shows its content: 'todos', 'item panel', 'messages', 'message', 'milestones' (a milestone's comments
 * open), 'timesheet', 'report' (for
 * 2017-05-01 to 05-07). `atTodos` replaces the plain check('todos') (to check the board in another state too).
 */
export async function walkBoards(page: Page, pid: number, check: (where: string) => Promise<void>, atTodos = () => check('todos')): Promise<void> {
  await openBoard(page, pid, 'todos');
  await expect(page.getByText('Late permit')).toBeVisible();
  await atTodos();
  await page.getByText('Late permit').click();
  await expect(page.getByRole('complementary')).toBeVisible();
  await check('item panel');
  await page.keyboard.press('Escape');
  await openBoard(page, pid, 'messages');
  await expect(page.getByText('Weather window')).toBeVisible();
  await check('messages');
  await page.getByText('Weather window').click();
  await expect(page.getByRole('heading', { name: /Weather window/, level: 1 })).toBeVisible();
  await check('message');
  await openBoard(page, pid, 'milestones');
  await page.getByRole('button', { name: /Comments on Hut reservation/ }).click();
  await expect(page.getByText('Booked for four.')).toBeVisible();
  await check('milestones');
  await openBoard(page, pid, 'time');
  await check('timesheet');
  await openBoard(page, pid, 'report');
  const form = page.getByRole('form', { name: 'Report filters' });
  await form.getByLabel('From', { exact: true }).fill('2017-05-01');
  await form.getByLabel('To', { exact: true }).fill('2017-05-07');
  await form.getByRole('button', { name: 'Run report' }).click();
  await expect(page.locator('[data-report-total]')).toBeVisible();
  await check('report');
}
