#!/usr/bin/env node
// npm run desktop:real — the desktop app in the real Electron of the tests (33.2.1, scripts/electron-runtime.mjs)
// under Xvfb: start it on a fresh profile (the demo account), wait for its window to show the boards, save a
// screenshot of that window (BrowserWindow.capturePage: what Electron itself drew), quit.
//
//   npm run desktop:real [-- --out FILE]       dev layout (compiles the shell and builds the UI first)
//   npm run desktop:real -- --packaged         the packaged test build (release/test/linux-unpacked; built by
//                                              npm run package:dir when missing)
//   npm run desktop:real -- --print-launch [--packaged] [--profile DIR]
//                                              print one line of JSON {executablePath, args, env, cwd}: the options
//                                              for Playwright's _electron.launch (under an X display). Nothing else
//                                              goes to stdout; the profile (a new temporary folder unless --profile)
//                                              is kept.
// Without DISPLAY it runs itself again under `xvfb-run -a` (Debian's xvfb and xauth).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { prepareElectron } from './electron-runtime.mjs';
import { devEntry, launchSpec, packagedDir, root } from './electron-launch.mjs';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const value = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const packaged = flag('--packaged');
const printLaunch = flag('--print-launch');
const err = (s) => process.stderr.write(`${s}\n`);

/** Runs a build step with its output on stderr (stdout stays for the JSON line of --print-launch). */
function build(args) {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) {
    err(`desktop:real: ${args.join(' ')} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
}

const runtime = await prepareElectron({ log: err });
if (runtime.skip) {
  err(`desktop:real: no Electron runtime here: ${runtime.skip}`);
  process.exit(1);
}

if (printLaunch) {
  if (packaged ? !existsSync(join(packagedDir, 'bivouac')) : !existsSync(devEntry)) {
    build(packaged ? [join(root, 'scripts', 'package-dir.mjs')] : [join(root, 'scripts', 'package-dir.mjs'), '--compile-only']);
  }
  const profile = value('--profile') ? resolve(value('--profile')) : mkdtempSync(join(tmpdir(), 'bivouac-desktop-real-'));
  process.stdout.write(`${JSON.stringify(launchSpec({ packaged, profile }))}\n`);
  process.exit(0);
}

if (!process.env.DISPLAY) {
  const r = spawnSync('xvfb-run', ['-a', '-s', '-screen 0 1600x1000x24', process.execPath, new URL(import.meta.url).pathname, ...argv], { stdio: 'inherit' });
  if (r.error) err(`desktop:real: cannot run xvfb-run (${r.error.message}): install Debian's xvfb and xauth`);
  process.exit(r.status ?? 1);
}

if (packaged) {
  if (!existsSync(join(packagedDir, 'bivouac'))) build([join(root, 'scripts', 'package-dir.mjs')]);
} else {
  build([join(root, 'scripts', 'package-dir.mjs'), '--compile-only']);
  build([join(root, 'scripts', 'ensure-ui.mjs')]);
}

const { _electron } = await import('@playwright/test');
const out = resolve(value('--out') ?? join(root, 'test-results', `desktop-real${packaged ? '-packaged' : ''}.png`));
const profile = mkdtempSync(join(tmpdir(), 'bivouac-desktop-real-'));
const t0 = Date.now();
let app;
try {
  app = await _electron.launch({ ...launchSpec({ packaged, profile }), timeout: 90_000 });
  const win = await app.firstWindow({ timeout: 90_000 });
  await win.getByRole('heading', { name: 'Overview', level: 1 }).waitFor({ timeout: 60_000 }); // the first page (issue #27)
  await win.getByText('Loading…').waitFor({ state: 'hidden', timeout: 30_000 });
  await win.evaluate(() => document.fonts.ready); // eslint-disable-line no-undef -- runs in the page
  const shown = Date.now() - t0;
  const png = await app.evaluate(async ({ BrowserWindow }) => {
    const w = BrowserWindow.getAllWindows()[0];
    return (await w.capturePage()).toPNG().toString('base64');
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, Buffer.from(png, 'base64'));
  const t1 = Date.now();
  await app.close();
  app = null;
  process.stdout.write(`desktop:real: Electron ${runtime.version}, ${packaged ? 'the packaged test build' : 'the dev layout'}: window with the boards after ${shown} ms; `
    + `screenshot ${out}; quit in ${Date.now() - t1} ms\n`);
} catch (e) {
  err(`desktop:real: ${e instanceof Error ? e.message : e}`);
  process.exitCode = 1;
} finally {
  await app?.close().catch(() => undefined);
  rmSync(profile, { recursive: true, force: true });
}
