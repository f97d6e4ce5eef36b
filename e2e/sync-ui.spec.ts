// Offline sync in the UI (issue #8): a second service process is the team server; a third one, on an
// empty data directory, is the local service under test (the e2e's own service holds local work, which a
// connect would push up: docs/sync-client.md §2.2; e2e/sync-adopt.spec.ts tests that). First run → connect, go offline, edit, come back,
// see "synced"; a conflict made on both sides is resolved in the conflicts panel.
import { expect, test } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signIn, USERS } from './helpers.ts';
import { call as callAs, freePort, root, shot, start, stop } from './services.ts';

const call = <T = unknown>(base: string, method: string, path: string, body?: unknown) => callAs<T>(base, USERS.ada, method, path, body);

let teamDir = '';
let localDir = '';
let teamPort = 0;
let localPort = 0;
let team: ChildProcess | null = null;
let local: ChildProcess | null = null;
const teamUrl = () => `http://127.0.0.1:${teamPort}`;
const localUrl = () => `http://127.0.0.1:${localPort}`;
const startTeam = async () => { team = await start(['--data-dir', teamDir, '--seed', join(root, 'tests/fixtures/account.json'), '--no-demo'], teamPort); };

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  teamDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-team-'));
  localDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-local-'));
  teamPort = await freePort();
  await startTeam();
  localPort = await freePort();
  local = await start(['--data-dir', localDir, '--no-demo', '--sync-interval', '1'], localPort);
  const projects = await call<{ id: number; name: string }[]>(teamUrl(), 'GET', '/projects.json');
  const alpha = projects.find((p) => p.name === 'Alpha Ascent')!;
  await call(teamUrl(), 'POST', `/projects/${alpha.id}/todo_lists.json`, { todo_list: { name: 'Gear' } });
});
test.afterAll(async () => {
  await stop(local);
  await stop(team);
  rmSync(teamDir, { recursive: true, force: true });
  rmSync(localDir, { recursive: true, force: true });
});

test('connect to a team server at first run, work offline, come back, resolve a conflict', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${localUrl()}/`);
  await page.getByRole('button', { name: 'Connect to a team server' }).click();
  await page.getByLabel('Server URL').fill(teamUrl());
  await page.getByLabel('User name').fill('ada');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('did not accept this user name and password');
  await shot(page, 'sync-first-run-error');
  await page.getByLabel('Password').fill(USERS.ada.password);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible({ timeout: 30_000 });
  const badge = page.locator('header button.sync').first();
  await expect(badge).toHaveText(/Synced/);

  // The cloned list is here.
  const projects = await call<{ id: number; name: string }[]>(localUrl(), 'GET', '/projects.json');
  const alpha = projects.find((p) => p.name === 'Alpha Ascent')!;
  await page.evaluate((p) => { window.location.hash = `#/projects/${p}/todos`; }, alpha.id);
  const gear = page.locator('.column', { has: page.getByRole('heading', { name: 'Gear', exact: true }) });
  await expect(gear).toBeVisible();

  // The settings page shows the connection.
  await badge.click();
  const panel = page.getByRole('dialog', { name: 'Sync' });
  await expect(panel).toContainText(`Connected to ${teamUrl()}`);
  await shot(page, 'sync-settings');
  await panel.getByRole('button', { name: 'Close' }).click();

  // Offline: the team server stops; local work goes on.
  await stop(team);
  await gear.getByPlaceholder('Add an item…').fill('Spare crampons');
  await gear.getByRole('button', { name: 'Add item to Gear' }).click();
  await expect(badge).toHaveText(/^Offline( since .+)?$/, { timeout: 20_000 });
  await expect(badge).toHaveAttribute('title', /1 change wait/);
  await shot(page, 'sync-offline');

  // Back: same data directory and port; it syncs by itself (or with "Sync now").
  await startTeam();
  await badge.click();
  await panel.getByRole('button', { name: 'Sync now' }).click();
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(badge).toHaveText(/Synced/, { timeout: 30_000 });
  const remoteProjects = await call<{ id: number; name: string }[]>(teamUrl(), 'GET', '/projects.json');
  const rAlpha = remoteProjects.find((p) => p.name === 'Alpha Ascent')!;
  const rLists = await call<{ id: number; name: string; todo_items: { content: string }[] }[]>(teamUrl(), 'GET', `/projects/${rAlpha.id}/todo_lists.json?include=items`);
  const rGear = rLists.find((l) => l.name === 'Gear')!;
  expect(rGear.todo_items.map((i) => i.content)).toEqual(['Spare crampons']);
  await shot(page, 'sync-synced');

  // A conflict: the same field edited on the team server and here before they sync.
  const lLists = await call<{ id: number; name: string }[]>(localUrl(), 'GET', `/projects/${alpha.id}/todo_lists.json`);
  const lGear = lLists.find((l) => l.name === 'Gear')!;
  await call(teamUrl(), 'PUT', `/todo_lists/${rGear.id}.json`, { todo_list: { name: 'Gear (team)' } });
  await call(localUrl(), 'PUT', `/todo_lists/${lGear.id}.json`, { todo_list: { name: 'Gear (mine)' } });
  await call(localUrl(), 'POST', '/sync/run?wait=true');
  const conflictsLink = page.getByRole('button', { name: '1 conflict' });
  await expect(conflictsLink).toBeVisible({ timeout: 20_000 });
  await conflictsLink.click();
  const row = panel.locator('tbody tr').first();
  await expect(row).toContainText('Gear (mine)');
  await expect(row).toContainText('Gear (team)');
  await expect(row).toContainText('name');
  await shot(page, 'sync-conflicts');
  await row.getByRole('button', { name: 'Keep theirs' }).click();
  await expect(row).toContainText('Kept theirs');
  await call(localUrl(), 'POST', '/sync/run?wait=true');
  await expect(page.getByRole('button', { name: /conflict/ })).toHaveCount(0, { timeout: 20_000 });
  const after = await call<{ id: number; name: string }>(teamUrl(), 'GET', `/todo_lists/${rGear.id}.json`);
  expect(after.name).toBe('Gear (team)');
  expect((await call<{ name: string }>(localUrl(), 'GET', `/todo_lists/${lGear.id}.json`)).name).toBe('Gear (team)');

  // Disconnect: the data stays, standalone.
  await panel.getByRole('tab', { name: 'Team server' }).click();
  await panel.getByRole('button', { name: 'Disconnect' }).click();
  await expect(panel.getByLabel('Server URL')).toBeVisible();
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(badge).toHaveText('Local only');
  await expect(gear).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Gear (team)', exact: true })).toBeVisible();
});

test('settings page: a connect the engine refuses shows its message and changes nothing', async ({ page }) => {
  await signIn(page, 'ada');
  const badge = page.locator('header button.sync').first();
  await expect(badge).toHaveText('Local only');
  await badge.click();
  const panel = page.getByRole('dialog', { name: 'Sync' });
  // Cleo sees only Alpha Ascent there and may not create projects: this directory's other projects block
  // (as an administrator the work would be pushed up: e2e/sync-adopt.spec.ts).
  await panel.getByLabel('Server URL').fill(teamUrl());
  await panel.getByLabel('User name').fill('cleo');
  await panel.getByLabel('Password').fill(USERS.cleo.password);
  await panel.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(panel.getByRole('alert')).toContainText('holds local work that cannot be pushed');
  await expect(panel.getByRole('alert')).toContainText(/projects? .*"Base Camp Logistics".*: not on the remote/);
  await shot(page, 'sync-settings-refused');
  await expect(panel.getByLabel('Server URL')).toHaveValue(teamUrl());
  await panel.getByLabel('Server URL').fill('http://127.0.0.1:9');
  await panel.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(panel.getByRole('alert')).toContainText('could not reach');
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(badge).toHaveText('Local only');
});
