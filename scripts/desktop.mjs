#!/usr/bin/env node
// npm run desktop — the desktop app in development: compile the main process and the preload
// (npm run build:electron), build the UI if needed, then start Electron on this folder. Extra
// arguments go to the app (e.g. `npm run desktop -- bivouac://projects/1`).
// Needs Electron's binary (node_modules/electron/dist), which `npm ci` downloads unless
// ELECTRON_SKIP_BINARY_DOWNLOAD=1 is set; where it cannot be downloaded, this stops with a message.

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(join(root, 'package.json'));
const run = (args) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

let electron;
try {
  electron = require('electron'); // the path of the binary; throws when it was not downloaded
} catch (e) {
  process.stderr.write(`npm run desktop: Electron's binary is not installed (${e.message.split('\n')[0]}).\n`
    + 'Run `npm ci` (or `node node_modules/electron/install.js`) on a machine that can download Electron.\n'
    + 'Here, `npm run desktop:real` runs the app in the tests\' Electron 33.2.1 under Xvfb (docs/desktop-shell.md).\n');
  process.exit(1);
}
run([join(root, 'scripts', 'package-dir.mjs'), '--compile-only']);
run([join(root, 'scripts', 'ensure-ui.mjs')]);
const r = spawnSync(electron, ['.', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env: { ...process.env, ELECTRON_ENABLE_LOGGING: '1' } });
process.exit(r.status ?? 1);
