// Connecting a data directory that already holds your own work (issue #8, D150): from the Team server
// panel, a connect that cannot take the work is refused with the server's message as is (nothing
// changed); as an administrator of a team server the work goes up and the directory is a replica.
import { expect, test } from '@playwright/test';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USERS } from './helpers.ts';
import { call, freePort, node, root, shot, start, stop } from './services.ts';

const LOCAL = { user: 'ada', password: 'solo-pass-123' };

let teamDir = '';
let localDir = '';
let teamPort = 0;
let localPort = 0;
let team: ChildProcess | null = null;
let local: ChildProcess | null = null;
const teamUrl = () => `http://127.0.0.1:${teamPort}`;
const localUrl = () => `http://127.0.0.1:${localPort}`;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  teamDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-team-'));
  localDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-own-'));
  teamPort = await freePort();
  team = await start(['--data-dir', teamDir, '--seed', join(root, 'tests/fixtures/account.json'), '--no-demo'], teamPort);
  const setup = spawnSync(node, [join(root, 'electron/cli.ts'), 'setup', '--data-dir', localDir, '--firm', 'Solo', '--first-name', 'Ada', '--last-name', 'Solo', '--user', LOCAL.user, '--project', 'Solo Ridge'],
    { cwd: root, env: { ...process.env, BIVOUAC_PASSWORD: LOCAL.password }, encoding: 'utf8' });
  if (setup.status !== 0) throw new Error(setup.stderr);
  localPort = await freePort();
  local = await start(['--data-dir', localDir, '--sync-interval', '0'], localPort);
  const [ridge] = await call<{ id: number }[]>(localUrl(), LOCAL, 'GET', '/projects.json');
  for (const name of ['Approach', 'Summit day']) {
    const list = await call<{ id: number }>(localUrl(), LOCAL, 'POST', `/projects/${ridge.id}/todo_lists.json`, { todo_list: { name } });
    for (let k = 1; k <= 4; k++) await call(localUrl(), LOCAL, 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: `${name} step ${k}` } });
  }
});
test.afterAll(async () => {
  await stop(local);
  await stop(team);
  rmSync(teamDir, { recursive: true, force: true });
  rmSync(localDir, { recursive: true, force: true });
});

test('connect a directory with its own work: refused as a non-administrator, pushed up as an administrator', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${localUrl()}/`);
  await page.getByLabel('User name').fill(LOCAL.user);
  await page.getByLabel('Password').fill(LOCAL.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible();
  const badge = page.locator('header button.sync').first();
  await expect(badge).toHaveText(/Local only/);
  await badge.click();
  const panel = page.getByRole('dialog', { name: 'Sync' });
  await panel.getByLabel('Server URL').fill(teamUrl());
  await panel.getByLabel('User name').fill('fran');
  await panel.getByLabel('Password').fill(USERS.fran.password);
  await panel.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(panel.getByRole('alert')).toContainText('holds local work that cannot be pushed');
  await expect(panel.getByRole('alert')).toContainText('project "Solo Ridge": not on the remote');
  await shot(page, 'sync-adopt-refused');
  const before = await call<{ name: string }[]>(teamUrl(), USERS.ada, 'GET', '/projects.json');
  expect(before.map((p) => p.name)).not.toContain('Solo Ridge');

  await panel.getByLabel('User name').fill('ada');
  await panel.getByLabel('Password').fill(USERS.ada.password);
  await panel.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(panel).toContainText(`Connected to ${teamUrl()}`, { timeout: 30_000 });
  await expect(badge).toHaveText(/Synced/);
  await shot(page, 'sync-adopt-connected');
  const projects = await call<{ id: number; name: string }[]>(teamUrl(), USERS.ada, 'GET', '/projects.json');
  const ridge = projects.find((p) => p.name === 'Solo Ridge')!;
  const lists = await call<{ name: string }[]>(teamUrl(), USERS.ada, 'GET', `/projects/${ridge.id}/todo_lists.json`);
  expect(lists.map((l) => l.name)).toEqual(['Approach', 'Summit day']);
});
