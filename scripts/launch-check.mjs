#!/usr/bin/env node
// Does a build of the desktop app start? Launches it in the test runtime (scripts/electron-launch.mjs) on a
// throwaway profile with Playwright's _electron, waits for its window to show the boards with the bridge in it,
// then quits it. Exit 0 and one line saying what it saw, or exit 1 and why not. Needs an X display (xvfb-run).
//
//   node scripts/launch-check.mjs [--packaged]

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron } from '@playwright/test';
import { launchSpec } from './electron-launch.mjs';

const packaged = process.argv.includes('--packaged');
const profile = mkdtempSync(join(tmpdir(), 'bivouac-launch-check-'));
const spec = launchSpec({ packaged, profile });
const what = packaged ? 'the packaged test build' : 'the dev layout';
let app;
try {
  app = await _electron.launch({ ...spec, timeout: 90_000 });
  const win = await app.firstWindow({ timeout: 90_000 });
  // The first page after sign-in is the Overview (issue #27); then the Todos board, as a person opens it.
  await win.getByRole('heading', { name: 'Overview', level: 1 }).waitFor({ timeout: 60_000 });
  await win.getByRole('button', { name: 'Todos', exact: true }).click();
  await win.getByRole('heading', { name: 'Todos', level: 1 }).waitFor({ timeout: 30_000 });
  await win.locator('.column').first().waitFor({ timeout: 30_000 });
  /* global window, document, location -- the callback runs in the page */
  const seen = await win.evaluate(() => ({ bridge: Object.keys(window.bivouac ?? {}).length, columns: document.querySelectorAll('.column').length, origin: location.origin }));
  if (seen.bridge !== 6 || seen.columns === 0) throw new Error(`the window shows ${seen.columns} board columns and a bridge of ${seen.bridge} members`);
  await app.close();
  app = null;
  process.stdout.write(`launch check: ${what} started, its window shows the boards (${seen.columns} columns) from ${seen.origin}, and quit\n`);
} catch (e) {
  let log = '';
  for (const name of ['Bivouac', 'bivouac']) {
    try { log = readFileSync(join(profile, name, 'logs', 'bivouac.log'), 'utf8'); } catch { /* not there */ }
  }
  process.stderr.write(`launch check: ${what} (${spec.executablePath}) did not start: ${e instanceof Error ? e.message.split('\n')[0] : e}\n${log ? `its log:\n${log}` : 'it wrote no log\n'}`);
  process.exitCode = 1;
} finally {
  await app?.close().catch(() => undefined);
  rmSync(profile, { recursive: true, force: true });
}
