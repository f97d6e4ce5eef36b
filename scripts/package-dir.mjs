#!/usr/bin/env node
// npm run package:dir — build the unpacked desktop app, check what went into it, and launch it.
//
//   1. compile the main process and preload (tsconfig.electron.json) to dist/electron + dist/shared (and the
//      real-Electron tests' entry to dist/e2e-electron); the preload is bundled with shared/ipc.ts to one
//      CommonJS file (dist/electron/preload.cjs): sandboxed preloads can be neither ES modules nor load other
//      files; then start the compiled service once on plain Node (GET /health);
//   2. build the renderer if it is missing or stale (dist/renderer);
//   3. electron-builder --linux --dir on the test runtime (Electron 33.2.1, scripts/electron-runtime.mjs) as
//      electronDist, with the shipped configuration (its fuses flipped in a real binary) → release/linux-unpacked;
//   4. list its resources/app.asar and check the expected files are there, and the unwanted ones are not;
//   5. the packaged TEST build → release/test/linux-unpacked: the same configuration but for the inspector fuse
//      (EnableNodeCliInspectArguments on: Playwright's _electron passes --inspect=0) and the entry (package.json
//      main = dist/e2e-electron/entry.js, which runs the service on Node 24: Electron 33's Node 20 has no
//      node:sqlite; D260). The shipped build cannot start in Electron 33 for that reason;
//   6. launch the test build (scripts/launch-check.mjs under xvfb-run): its window must show the boards. A build
//      that does not start fails here (e.g. a node_modules symlink, with which electron-builder packs only the
//      direct dependencies).
//
// Where the test runtime cannot be had (not Linux x64, the package cannot be fetched), steps 3–4 use a placeholder
// binary and steps 5–6 are skipped with the reason; under CI=true that fails.
// `--skip-ui` packages dist/renderer as it is (no renderer build); `--compile-only` stops after step 1
// (`npm run build:electron`, then `npx electron .` where an Electron binary exists).
// `node scripts/package-dir.mjs --release [electron-builder args…]` builds real installers with the official
// Electron (needs the network to download it), e.g. `npm run package -- --linux`.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { prepareElectron, ELECTRON_VERSION } from './electron-runtime.mjs';

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
const runtime = await prepareElectron({ log: (m) => process.stdout.write(`${m}\n`) });
const configDir = mkdtempSync(join(tmpdir(), 'bivouac-builder-config-'));
rmSync(join(root, 'release', 'linux-unpacked'), { recursive: true, force: true });
rmSync(join(root, 'release', 'test'), { recursive: true, force: true });
const yaml = createRequire(require.resolve('app-builder-lib/package.json'))('js-yaml');
const shippedConfig = yaml.load(readFileSync(join(root, 'build', 'electron-builder.yml'), 'utf8'));
if (runtime.dist) {
  step(`electron-builder --linux --dir (Electron ${ELECTRON_VERSION}, the test runtime, with the shipped configuration)`);
  try {
    run(process.execPath, [builder, ...config, '--projectDir', root, '--linux', '--dir', `-c.electronDist=${runtime.dist}`, `-c.electronVersion=${ELECTRON_VERSION}`, ...passThrough]);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
} else {
  step(`electron-builder --linux --dir (placeholder Electron: ${runtime.skip})`);
  const fakeDist = mkdtempSync(join(tmpdir(), 'bivouac-electron-dist-'));
  writeFileSync(join(fakeDist, 'electron'), '#!/bin/sh\necho "placeholder Electron binary (package:dir)" >&2\nexit 1\n');
  chmodSync(join(fakeDist, 'electron'), 0o755);
  try {
    // The placeholder has no fuse sentinel to flip: the same configuration with `electronFuses: null`.
    const placeholderConfig = join(configDir, 'electron-builder.json');
    writeFileSync(placeholderConfig, JSON.stringify({ ...shippedConfig, electronFuses: null }));
    run(process.execPath, [builder, '--config', placeholderConfig, '--projectDir', root, '--linux', '--dir', `-c.electronDist=${fakeDist}`, ...passThrough]);
  } finally {
    rmSync(fakeDist, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  }
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
  if (/^\/(tests|e2e|e2e-electron|bench|renderer|electron|shared|scripts)\//.test(f)) problems.push(`source folder packaged: ${f}`);
  if (f.startsWith('/dist/e2e-electron')) problems.push(`the tests' entry packaged in the shipped build: ${f}`);
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

if (!runtime.dist) {
  const ci = process.env.CI === 'true';
  process.stdout.write(`package:dir: the packaged app was NOT launched: ${runtime.skip}${ci ? ' (a failure under CI=true)' : ''}\n`);
  process.exit(ci ? 1 : 0);
}

// 5. the packaged test build: the shipped configuration, the inspector fuse on, the tests' entry (D260).
step('electron-builder --linux --dir: the test build (inspector fuse on, entry dist/e2e-electron/entry.js) → release/test');
const testConfigDir = mkdtempSync(join(tmpdir(), 'bivouac-builder-config-'));
try {
  const testConfig = join(testConfigDir, 'electron-builder.json');
  writeFileSync(testConfig, JSON.stringify({
    ...shippedConfig,
    directories: { ...shippedConfig.directories, output: 'release/test' },
    files: [...shippedConfig.files, 'dist/e2e-electron/**/*'],
    extraMetadata: { ...shippedConfig.extraMetadata, main: 'dist/e2e-electron/entry.js' },
    electronFuses: { ...shippedConfig.electronFuses, enableNodeCliInspectArguments: true },
  }));
  run(process.execPath, [builder, '--config', testConfig, '--projectDir', root, '--linux', '--dir', `-c.electronDist=${runtime.dist}`, `-c.electronVersion=${ELECTRON_VERSION}`]);
} finally {
  rmSync(testConfigDir, { recursive: true, force: true });
}

// 6. launch it: a build that does not start is a failed build.
step('launch the packaged test build (scripts/launch-check.mjs)');
const check = [join(root, 'scripts', 'launch-check.mjs'), '--packaged'];
if (process.env.DISPLAY) run(process.execPath, check);
else run('xvfb-run', ['-a', '-s', '-screen 0 1600x1000x24', process.execPath, ...check]);
process.stdout.write('package:dir OK\n');
