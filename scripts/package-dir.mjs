#!/usr/bin/env node
// npm run package:dir — build an unpacked desktop app and check what went into it.
//
//   1. compile the main process and preload (tsconfig.electron.json) to dist/electron + dist/shared;
//      the preload is bundled with shared/ipc.ts to one CommonJS file (dist/electron/preload.cjs):
//      sandboxed preloads can be neither ES modules nor load other files;
//      then start the compiled service once on plain Node (GET /health);
//   2. build the renderer if it is missing or stale (dist/renderer);
//   3. electron-builder --linux --dir with a placeholder Electron (no download: this machine has no
//      Electron binary, see ../shared/research/feasibility.md §6);
//   4. list release/linux-unpacked/resources/app.asar and check the expected files are there, and
//      the unwanted ones are not.
//
// `--skip-ui` packages dist/renderer as it is (no renderer build); `--compile-only` stops after step 1
// (`npm run build:electron`, then `npx electron .` where an Electron binary exists).
// `node scripts/package-dir.mjs --release [electron-builder args…]` skips the placeholder and builds
// real installers (needs the network to download Electron), e.g. `npm run package -- --linux`.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(join(root, 'package.json'));
const release = process.argv.includes('--release');
const skipUi = process.argv.includes('--skip-ui'); // package whatever dist/renderer holds (or nothing)
const compileOnly = process.argv.includes('--compile-only'); // step 1 only (npm run build:electron)
const passThrough = process.argv.slice(2).filter((a) => !['--release', '--skip-ui', '--compile-only'].includes(a));

const step = (msg) => process.stdout.write(`\n== ${msg}\n`);
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`package-dir: ${[cmd, ...args].join(' ')} failed (${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}

// 1. main process
step('compile the main process (tsc -p tsconfig.electron.json)');
rmSync(join(root, 'dist', 'electron'), { recursive: true, force: true });
rmSync(join(root, 'dist', 'shared'), { recursive: true, force: true });
run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.electron.json']);
// Sandboxed preloads can load no modules: bundle it with the IPC contract (shared/ipc.ts) into one
// CommonJS file, `electron` left as the only require (rolldown, which Vite brings along).
const { build: bundle } = await import(pathToFileURL(require.resolve('rolldown')).href);
await bundle({
  input: join(root, 'electron', 'preload.ts'), platform: 'node', external: ['electron'], logLevel: 'warn',
  output: { format: 'cjs', file: join(root, 'dist', 'electron', 'preload.cjs') }, write: true,
});
rmSync(join(root, 'dist', 'electron', 'preload.js'), { force: true });

// The compiled service must run on plain Node 24 (the Node of Electron 45): start it on a scratch
// data directory, ask /health, stop it.
step('smoke-test the compiled service (dist/electron/server.js on Node ' + process.versions.node + ')');
const scratch = mkdtempSync(join(tmpdir(), 'bivouac-package-smoke-'));
const smoke = `
  const { serve } = await import(${JSON.stringify(new URL('../dist/electron/server.js', import.meta.url).href)});
  const r = await serve({ dataDir: ${JSON.stringify(scratch)}, port: 0, demo: true, logLevel: 'silent' });
  const res = await fetch(r.url + '/health');
  const body = await res.text();
  await r.close();
  if (res.status !== 200) throw new Error('GET /health answered ' + res.status + ' ' + body);
  console.log('GET ' + r.url + '/health -> ' + res.status + ' ' + body);
  // The WAL checkpoint worker is started by URL (dist/electron/store/checkpoint-worker.js): it must load
  // from the build and checkpoint (D180).
  const { SqliteStore } = await import(${JSON.stringify(new URL('../dist/electron/store/sqlite.js', import.meta.url).href)});
  const s = new SqliteStore(${JSON.stringify(join(scratch, 'checkpoint.sqlite'))}, { checkpoints: { every: 1 } });
  s.db.exec('CREATE TABLE t (x)');
  for (let i = 0; i < 50 && s.checkpointer.stats().passes === 0 && !s.checkpointer.stats().failed; i++) {
    await s.write(async (w) => { await w.run('INSERT INTO t VALUES (?)', [i]); });
    await new Promise((res) => setTimeout(res, 20));
  }
  const st = s.checkpointer.stats();
  await s.close();
  if (st.failed || st.passes === 0) throw new Error('the compiled checkpoint worker did not run: ' + JSON.stringify(st));
  console.log('checkpoint worker (compiled): ' + st.passes + ' passes');`;
try {
  run(process.execPath, ['--input-type=module', '-e', smoke]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (compileOnly) process.exit(0);

// 2. renderer
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const hasUi = skipUi ? existsSync(join(root, 'dist', 'renderer', 'index.html')) : existsSync(join(root, 'renderer', 'index.html'));
if (hasUi && !skipUi) {
  step('build the renderer');
  if (pkg.scripts?.['build:ui']) {
    if (process.env.npm_execpath) run(process.execPath, [process.env.npm_execpath, 'run', 'build:ui', '--silent']);
    else run('npm', ['run', 'build:ui', '--silent']);
  }
  else run(process.execPath, [join(root, 'scripts', 'ensure-ui.mjs')]);
} else if (!hasUi) {
  process.stdout.write('(no renderer to package: packaging without a UI)\n');
}

// 3. electron-builder
const builder = require.resolve('electron-builder/cli.js');
const config = ['--config', join(root, 'build', 'electron-builder.yml')];
if (release) {
  step(`electron-builder ${passThrough.join(' ')}`);
  run(process.execPath, [builder, ...config, ...passThrough], { env: { ...process.env } });
  process.exit(0);
}
step('electron-builder --linux --dir (placeholder Electron)');
const fakeDist = mkdtempSync(join(tmpdir(), 'bivouac-electron-dist-'));
const configDir = mkdtempSync(join(tmpdir(), 'bivouac-builder-config-'));
writeFileSync(join(fakeDist, 'electron'), '#!/bin/sh\necho "placeholder Electron binary (package:dir)" >&2\nexit 1\n');
chmodSync(join(fakeDist, 'electron'), 0o755);
rmSync(join(root, 'release', 'linux-unpacked'), { recursive: true, force: true });
try {
  // The placeholder has no fuse sentinel to flip: the fuses (build/electron-builder.yml) apply to real
  // builds; here the same configuration is extended with `electronFuses: null`.
  const placeholderConfig = join(configDir, 'electron-builder.json');
  writeFileSync(placeholderConfig, JSON.stringify({ extends: join(root, 'build', 'electron-builder.yml'), electronFuses: null }));
  run(process.execPath, [builder, '--config', placeholderConfig, '--projectDir', root, '--linux', '--dir', `-c.electronDist=${fakeDist}`, ...passThrough]);
} finally {
  rmSync(fakeDist, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
}

// 4. what is in the asar?
step('check release/linux-unpacked/resources/app.asar');
const asarFile = join(root, 'release', 'linux-unpacked', 'resources', 'app.asar');
if (!existsSync(asarFile)) {
  process.stderr.write(`package-dir: ${asarFile} was not produced\n`);
  process.exit(1);
}
let asar;
try {
  asar = require('@electron/asar');
} catch {
  asar = createRequire(require.resolve('app-builder-lib/package.json'))('@electron/asar');
}
const files = new Set(asar.listPackage(asarFile, { isPack: false }).map((f) => f.split('\\').join('/')));
const expected = [
  '/package.json', '/dist/electron/main.js', '/dist/electron/preload.cjs', '/dist/electron/server.js',
  '/dist/electron/http/app.js', '/dist/electron/store/sqlite.js', '/dist/electron/store/checkpoint-worker.js', '/dist/shared/registry.js',
  '/node_modules/fastify/package.json', '/node_modules/fast-xml-parser/package.json', '/node_modules/electron-updater/package.json',
  '/dist/electron/shell/shell.js', '/dist/shared/ipc.js',
  ...(hasUi ? ['/dist/renderer/index.html'] : []),
];
const problems = expected.filter((f) => !files.has(f)).map((f) => `missing ${f}`);
for (const f of files) {
  if (!f.startsWith('/node_modules/') && /\.tsx?$/.test(f)) problems.push(`TypeScript source packaged: ${f}`);
  if (/^\/node_modules\/(electron|electron-builder|typescript|vitest|vite|node|eslint|@playwright)\//.test(f)) problems.push(`dev dependency packaged: ${f}`);
  if (/^\/(tests|e2e|bench|renderer|electron|shared|scripts)\//.test(f)) problems.push(`source folder packaged: ${f}`);
}
// The compiled code must import compiled files (`.js`), not the `.ts` sources.
for (const f of files) {
  if (!f.startsWith('/dist/') || !/\.c?js$/.test(f)) continue;
  const text = asar.extractFile(asarFile, f.slice(1)).toString('utf8');
  if (/from\s+['"]\.{1,2}\/[^'"]*\.ts['"]/.test(text)) problems.push(`${f} still imports a .ts file`);
}
const packaged = JSON.parse(asar.extractFile(asarFile, 'package.json').toString('utf8'));
if (packaged.main !== 'dist/electron/main.js') problems.push(`packaged package.json main is ${packaged.main}`);
const preloadText = asar.extractFile(asarFile, 'dist/electron/preload.cjs').toString('utf8');
if (!/require\("electron"\)/.test(preloadText)) problems.push('preload.cjs is not CommonJS');
for (const m of preloadText.matchAll(/require\(["']([^"']+)["']\)/g)) if (m[1] !== 'electron') problems.push(`preload.cjs requires ${m[1]} (a sandboxed preload can load nothing but electron)`);
for (const f of ['/resources/tray.png', '/resources/icon.png', '/resources/api.md']) if (!existsSync(join(root, 'release', 'linux-unpacked', f))) problems.push(`missing release/linux-unpacked${f}`);

const topModules = new Set([...files].filter((f) => f.startsWith('/node_modules/')).map((f) => f.split('/').slice(2, f.startsWith('/node_modules/@') ? 4 : 3).join('/')));
const dist = [...files].filter((f) => f.startsWith('/dist/') && !files.has(`${f}/`));
process.stdout.write(`app.asar: ${files.size} entries; dist files: ${dist.filter((f) => /\.\w+$/.test(f)).length}; node_modules packages: ${topModules.size}\n`);
process.stdout.write(`release/linux-unpacked: ${readdirSync(join(root, 'release', 'linux-unpacked')).join(', ')}\n`);
if (problems.length) {
  process.stderr.write(`package-dir: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('package:dir OK\n');
