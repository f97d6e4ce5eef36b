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

export async function openBoard(page: Page, pid: number, view: 'todos' | 'messages' | 'time' | 'report'): Promise<void> {
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
