// The clone's progress as "n of m" (issue #8): the first-run "connect to a team server" and the Team
// server panel, against a slow remote (a proxy that delays every request and hides the sync extension,
// so the clone is a plain-server scan that moves one company or project at a time).
import { expect, test } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttp, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USERS } from './helpers.ts';
import { freePort, root, shot, start, stop } from './services.ts';

/** A slow plain server: every request waits `delayMs`; /sync/* and the .json twins answer 404. */
function slowPlainProxy(target: number, delayMs: number): Promise<Server> {
  const server = createHttp((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => setTimeout(() => {
      if (path.startsWith('/sync/') || path.endsWith('.json')) {
        res.writeHead(404, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?>\n<errors><error>No such route</error></errors>');
        return;
      }
      const out = httpRequest({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${target}` } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      out.on('error', () => req.socket.destroy());
      out.end(Buffer.concat(chunks));
    }, delayMs));
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

let teamDir = '';
let localDir = '';
let team: ChildProcess | null = null;
let local: ChildProcess | null = null;
let proxy: Server | null = null;
let localPort = 0;
let proxyUrl = '';

test.beforeAll(async () => {
  teamDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-team-'));
  localDir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-local-'));
  const teamPort = await freePort();
  team = await start(['--data-dir', teamDir, '--seed', join(root, 'tests/fixtures/account.json'), '--no-demo'], teamPort);
  proxy = await slowPlainProxy(teamPort, 120);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  localPort = await freePort();
  local = await start(['--data-dir', localDir, '--no-demo', '--sync-interval', '0'], localPort);
});
test.afterAll(async () => {
  await stop(local);
  proxy?.closeAllConnections();
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  await stop(team);
  rmSync(teamDir, { recursive: true, force: true });
  rmSync(localDir, { recursive: true, force: true });
});

test('first-run connect and the Team server panel show the clone as "n of m"', async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto(`http://127.0.0.1:${localPort}/`);
  await page.getByRole('button', { name: 'Connect to a team server' }).click();
  await page.getByLabel('Server URL').fill(proxyUrl);
  await page.getByLabel('User name').fill('ada');
  await page.getByLabel('Password').fill(USERS.ada.password);
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  const status = page.getByRole('status').filter({ hasText: 'Copying' });
  await expect(status).toContainText(/Copying your team's data: \d+ of \d+/, { timeout: 30_000 });
  const bar = status.getByRole('progressbar', { name: "Copying your team's data" });
  const max = Number(await bar.getAttribute('max'));
  expect(max).toBeGreaterThan(1);
  expect(Number(await bar.getAttribute('value'))).toBeLessThanOrEqual(max);
  await shot(page, 'sync-first-run-progress');
  await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible({ timeout: 120_000 });

  // The Team server panel: "Sync now" against the same slow plain server shows n of m beside its bar.
  const badge = page.locator('header button.sync').first();
  await expect(badge).toHaveText(/Synced/);
  await badge.click();
  const panel = page.getByRole('dialog', { name: 'Sync' });
  await panel.getByRole('button', { name: 'Sync now' }).click();
  await expect(panel.locator('.sync-progress')).toContainText(/\d+ of \d+/, { timeout: 20_000 });
  await expect(badge).toHaveText(/Syncing \d+ of \d+/);
  await shot(page, 'sync-panel-progress');
  await expect(badge).toHaveText(/Synced/, { timeout: 120_000 });
});
