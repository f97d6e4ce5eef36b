// Live sync in the UI (issue #26, D305): a team server and a desktop app's local service (a second and a
// third process) with default settings (interval 30 s). A teammate's change made on the team server
// appears on the open board without a reload, long before the interval's sync.
import { expect, test } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USERS } from './helpers.ts';
import { call as callAs, freePort, root, start, stop } from './services.ts';

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
  teamDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-live-team-'));
  localDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-live-local-'));
  teamPort = await freePort();
  team = await start(['--data-dir', teamDir, '--seed', join(root, 'tests/fixtures/account.json'), '--no-demo'], teamPort);
  localPort = await freePort();
  local = await start(['--data-dir', localDir, '--no-demo'], localPort); // default sync settings
  const projects = await callAs<{ id: number; name: string }[]>(teamUrl(), USERS.ada, 'GET', '/projects.json');
  const alpha = projects.find((p) => p.name === 'Alpha Ascent')!;
  await callAs(teamUrl(), USERS.ada, 'POST', `/projects/${alpha.id}/todo_lists.json`, { todo_list: { name: 'Gear' } });
});
test.afterAll(async () => {
  await stop(local);
  await stop(team);
  rmSync(teamDir, { recursive: true, force: true });
  rmSync(localDir, { recursive: true, force: true });
});

test('a change made by a teammate appears on the open board without a reload', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${localUrl()}/`);
  await page.getByRole('button', { name: 'Connect to a team server' }).click();
  await page.getByLabel('Server URL').fill(teamUrl());
  await page.getByLabel('User name').fill('ada');
  await page.getByLabel('Password').fill(USERS.ada.password);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible({ timeout: 30_000 });
  const badge = page.locator('header button.sync').first();
  await expect(badge).toHaveText('Synced');
  const projects = await callAs<{ id: number; name: string }[]>(localUrl(), USERS.ada, 'GET', '/projects.json');
  const alpha = projects.find((p) => p.name === 'Alpha Ascent')!;
  await page.evaluate((p) => { window.location.hash = `#/projects/${p}/todos`; }, alpha.id);
  const gear = page.locator('.column', { has: page.getByRole('heading', { name: 'Gear', exact: true }) });
  await expect(gear).toBeVisible();

  // Fran, on the team server, adds an item to Gear: it shows on Ada's open board, no reload, no "Sync now"
  // (the wait is far below the 30 s interval).
  const lists = await callAs<{ id: number; name: string }[]>(teamUrl(), USERS.fran, 'GET', `/projects/${(await callAs<{ id: number; name: string }[]>(teamUrl(), USERS.fran, 'GET', '/projects.json')).find((p) => p.name === 'Alpha Ascent')!.id}/todo_lists.json`);
  const rGear = lists.find((l) => l.name === 'Gear')!;
  await callAs(teamUrl(), USERS.fran, 'POST', `/todo_lists/${rGear.id}/todo_items.json`, { todo_item: { content: 'Ice screws from Fran' } });
  await expect(gear.getByText('Ice screws from Fran')).toBeVisible({ timeout: 8_000 });
  await expect(badge).toHaveText('Synced');
});
