#!/usr/bin/env node
// npm run bench:ui — how fast the renderer shows real data, in Debian's Chromium:
//  1. generates a dataset (seed fixture + generateDataset, plus a 500-entry week for the admin)
//     into a temporary data dir, builds the UI and measures the JS bundle (gzipped);
//  2. starts the real service on it;
//  3. opens the todo board of the busiest project and the timesheet week, in a fresh browser
//     context each run (already signed in: credentials in sessionStorage), and times navigation
//     start → the data painted (every card / the week total), then → the board reacting to a key.
// Prints a table and writes bench/results/ui.md. Goals: board interactive < 1.5 s, bundle < 300 kB gz.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from '@playwright/test';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIXTURE = join(ROOT, 'tests', 'fixtures', 'account.json');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PORT = Number(process.env.BENCH_PORT ?? 4891);
const log = (s: string) => process.stdout.write(`${s}\n`);
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const ymd = (d: Date) => d.toISOString().slice(0, 10);

async function makeData(dir: string) {
  const { SqliteStore } = await import('../electron/store/sqlite.ts');
  const { importSeed } = await import('../electron/service/account.ts');
  const { generateDataset } = await import('../electron/service/dataset.ts');
  const { DB_FILE } = await import('../electron/server.ts');
  const store = new SqliteStore(join(dir, DB_FILE));
  await importSeed(store, JSON.parse(readFileSync(FIXTURE, 'utf8')));
  const summary = await generateDataset(store, { projects: 3, people: 8, posts: 600, comments: 3000, todoLists: 60, todoItems: 3000, timeEntries: 5000 });
  const ada = (await store.get<{ id: number }>("SELECT id FROM people WHERE user_name = 'ada'"))!.id;
  // the project with the most todo items is the board to open
  const board = (await store.get<{ project_id: number; n: number }>('SELECT project_id, COUNT(*) AS n FROM todo_items GROUP BY project_id ORDER BY n DESC LIMIT 1'))!;
  const items = (await store.all<{ id: number }>('SELECT id FROM todo_items WHERE project_id = ? ORDER BY id LIMIT 80', [board.project_id])).map((r) => Number(r.id));
  // a 500-entry week for Ada: this week, on 80 items of that project (rows) and 7 days
  const now = new Date();
  const monday = new Date(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate() - ((now.getDay() + 6) % 7)));
  const week = Array.from({ length: 7 }, (_, i) => ymd(new Date(monday.getTime() + i * 86_400_000)));
  await store.run('DELETE FROM time_entries WHERE person_id = ? AND date >= ? AND date <= ?', [ada, week[0], week[6]]).catch(() => undefined);
  let quarterHours = 0;
  await store.write(async (w) => {
    for (let i = 0; i < 500; i++) {
      const q = 1 + (i % 8);
      quarterHours += q;
      await w.insert('time_entries', {
        project_id: board.project_id, person_id: ada, date: week[i % 7], hours: q / 4, description: `Bench entry ${i}`,
        private: 0, todo_item_id: items[i % items.length],
      }, board.project_id);
    }
  });
  const weekTotal = (await store.get<{ h: number }>('SELECT SUM(hours) AS h FROM time_entries WHERE person_id = ? AND date >= ? AND date <= ?', [ada, week[0], week[6]]))!.h;
  await store.close();
  return { summary, project: board.project_id, items: board.n, weekTotal: Math.round(weekTotal * 100) / 100, week, extra: quarterHours / 4 };
}

function bundle(): { js: number; jsGz: number; css: number; cssGz: number } {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(ROOT, 'renderer/vite.config.ts'), '--logLevel', 'warn'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('vite build failed');
  const dir = join(ROOT, 'dist/renderer/assets');
  const out = { js: 0, jsGz: 0, css: 0, cssGz: 0 };
  for (const f of readdirSync(dir)) {
    const buf = readFileSync(join(dir, f));
    const gz = gzipSync(buf, { level: 9 }).length;
    if (f.endsWith('.js')) { out.js += statSync(join(dir, f)).size; out.jsGz += gz; }
    if (f.endsWith('.css')) { out.css += buf.length; out.cssGz += gz; }
  }
  return out;
}

function startService(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'electron/cli.ts'), 'serve', '--port', String(PORT), '--data-dir', dir], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const poll = async () => {
      try { if ((await fetch(`http://127.0.0.1:${PORT}/health`)).ok) return resolve(child); } catch { /* not yet */ }
      if (Date.now() - t0 > 30_000 || child.exitCode !== null) return reject(new Error('the service did not start'));
      setTimeout(poll, 50);
    };
    void poll();
  });
}

interface Timing { painted: number; interactive: number; requests: number; js: number; apiDone: number }
type Ready = { kind: 'board'; cards: number } | { kind: 'week'; total: string };

// The few browser globals the in-page functions use (this file is typechecked without the DOM lib).
interface PageEl { classList: { contains(c: string): boolean }; textContent: string | null; focus(): void; dispatchEvent(e: unknown): boolean }
interface PageWin {
  __painted?: number;
  document: { querySelectorAll(s: string): ArrayLike<PageEl>; querySelector(s: string): PageEl | null };
  requestAnimationFrame(f: () => void): number;
  KeyboardEvent: new (type: string, init: { key: string; bubbles: boolean }) => unknown;
}

/** Runs in the page (an init script: the page's CSP forbids string evaluation). */
function watchReady(r: Ready): void {
  const w = globalThis as unknown as PageWin;
  const { document, requestAnimationFrame } = w;
  const ok = () => (r.kind === 'board'
    ? document.querySelectorAll('.card[data-item-id]').length === r.cards
    : document.querySelector('[data-week-total]')?.textContent === r.total && document.querySelectorAll('.week-grid tbody tr').length > 10
      // rows named after their todo items (not the `Todo #id` placeholder)
      && !Array.from(document.querySelectorAll('.row-main')).some((e) => (e.textContent ?? '').startsWith('Todo #')));
  const tick = () => {
    if (ok()) requestAnimationFrame(() => setTimeout(() => { w.__painted = performance.now(); }, 0));
    else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

async function measure(browser: Browser, hash: string, ready: Ready, poke: boolean): Promise<Timing> {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await ctx.addInitScript(() => { sessionStorage.setItem('bivouac.credentials', JSON.stringify({ user: 'ada', password: 'ada-pass-1' })); });
  await ctx.addInitScript(watchReady, ready);
  const page = await ctx.newPage();
  let requests = 0;
  page.on('request', (q) => { if (/\.json/.test(q.url())) requests++; });
  await page.goto(`http://127.0.0.1:${PORT}/${hash}`, { waitUntil: 'commit' });
  const painted = await (await page.waitForFunction(() => (globalThis as unknown as PageWin).__painted, undefined, { polling: 100, timeout: 60_000 })).jsonValue() as number;
  // where the time went: the bundle loaded, the last API answer arrived
  const [js, apiDone] = await page.evaluate(() => {
    const rs = (globalThis as unknown as { performance: { getEntriesByType(t: string): { name: string; responseEnd: number }[] } }).performance.getEntriesByType('resource');
    const end = (f: (n: string) => boolean) => Math.max(0, ...rs.filter((x) => f(x.name)).map((x) => x.responseEnd));
    return [end((n) => n.endsWith('.js')), end((n) => n.includes('.json'))];
  });
  let interactive = painted;
  if (poke) {
    // interactive: a key on the first card toggles it and the change is painted (main thread free)
    interactive = await page.evaluate(() => new Promise<number>((resolve) => {
      const { document, requestAnimationFrame, KeyboardEvent } = globalThis as unknown as PageWin;
      const el = document.querySelector('.card[data-item-id]')!;
      const done = el.classList.contains('done');
      el.focus();
      el.dispatchEvent(new KeyboardEvent('keydown', { key: 'x', bubbles: true }));
      const check = () => (el.classList.contains('done') !== done ? requestAnimationFrame(() => resolve(performance.now())) : requestAnimationFrame(check));
      check();
    }));
  }
  await ctx.close();
  return { painted, interactive, requests, js, apiDone };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-bench-ui-'));
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  try {
    log('generating the dataset …');
    const t0 = performance.now();
    const data = await makeData(dir);
    const c = data.summary.counts;
    log(`  ${c.projects} projects, ${c.todoLists} lists, ${c.todoItems} items (${data.items} in the board's project), ${c.posts} posts, ${c.timeEntries + 500} time entries (${(performance.now() - t0).toFixed(0)} ms)`);
    log('building the UI …');
    const b = bundle();
    log(`  JS ${(b.js / 1024).toFixed(1)} kB (${(b.jsGz / 1024).toFixed(1)} kB gzipped), CSS ${(b.css / 1024).toFixed(1)} kB (${(b.cssGz / 1024).toFixed(1)} kB gzipped)`);
    server = await startService(dir);
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    const boardHash = `#/projects/${data.project}/todos`;
    const boardReady: Ready = { kind: 'board', cards: data.items };
    const weekHash = `#/projects/${data.project}/time`;
    const weekReady: Ready = { kind: 'week', total: String(data.weekTotal) };
    // warm-up (service caches, Chromium's first launch)
    await measure(browser, boardHash, boardReady, false);
    await measure(browser, weekHash, weekReady, false);
    const board: Timing[] = [], week: Timing[] = [];
    for (let i = 0; i < RUNS; i++) {
      board.push(await measure(browser, boardHash, boardReady, true));
      week.push(await measure(browser, weekHash, weekReady, false));
    }
    const bp = median(board.map((t) => t.painted)), bi = median(board.map((t) => t.interactive)), wp = median(week.map((t) => t.painted));
    const rows: [string, string, string, boolean | null][] = [
      [`Todo board painted (${data.items} cards, ${board[0].requests} API calls)`, `${bp.toFixed(0)} ms`, '', null],
      ['Todo board interactive (a key toggles a card, painted)', `${bi.toFixed(0)} ms`, '< 1500 ms', bi < 1500],
      [`Timesheet week painted (500 entries, total ${data.weekTotal} h)`, `${wp.toFixed(0)} ms`, '', null],
      ['JS bundle, gzipped', `${(b.jsGz / 1024).toFixed(1)} kB`, '< 300 kB', b.jsGz < 300 * 1024],
      ['JS bundle, raw', `${(b.js / 1024).toFixed(1)} kB`, '', null],
      ['CSS, gzipped', `${(b.cssGz / 1024).toFixed(1)} kB`, '', null],
    ];
    const table = ['| metric | value | goal | ok |', '|---|---|---|---|', ...rows.map(([m, v, g, ok]) => `| ${m} | ${v} | ${g} | ${ok === null ? '' : ok ? 'yes' : '**no**'} |`)].join('\n');
    const split = (ts: Timing[]) => `bundle loaded ${median(ts.map((t) => t.js)).toFixed(0)} ms, last API answer ${median(ts.map((t) => t.apiDone)).toFixed(0)} ms`;
    const runs = [`Runs (ms, navigation start → painted): board ${board.map((t) => t.painted.toFixed(0)).join(', ')}; week ${week.map((t) => t.painted.toFixed(0)).join(', ')}.`,
      `Medians of where the time goes: board: ${split(board)}; week: ${split(week)} (the rest is rendering).`,
      `Machine load average while measuring: ${loadavg().map((x) => x.toFixed(2)).join(', ')} on ${cpus().length} CPUs.`].join('\n');
    const md = [`# UI bench (${new Date().toISOString().slice(0, 10)})`, '',
      `Median of ${RUNS} runs, each in a fresh browser context (signed in through sessionStorage), Debian Chromium headless, ${cpus().length} CPUs,`,
      'service and browser on the same machine. "Painted" = navigation start until every card (or the week total and every row name) is in the DOM and a frame has been presented.', '',
      table, '', runs, ''].join('\n');
    log(`\n${table}\n\n${runs}`);
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/results/ui.md'), md);
    log('\nwritten to bench/results/ui.md');
    if (rows.some((r) => r[3] === false)) process.exitCode = 1;
  } finally {
    await browser?.close();
    if (server && server.exitCode === null) server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => { process.stderr.write(`${(e as Error).stack ?? e}\n`); process.exit(1); });
