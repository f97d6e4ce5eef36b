// What `npm test` prints of each failed test just before its summary (scripts/test.mjs): the test, the first
// lines of its error and the lines of it that say ERROR or Error (a real-Electron launch's error carries the
// tail of the app's log, D352). CI shows only the tail of a run's output, where a failure's own message, printed
// by its runner minutes earlier, is gone.

// eslint-disable-next-line no-control-regex -- the colour codes a runner wrote are what is taken out
const ANSI = /\u001b\[[0-9;]*m/g;
const MAX_TESTS = 5;
const HEAD_LINES = 2;
const MORE_LINES = 4;
const WIDTH = 200;

/** A failure's lines to print: its first lines and those that name an error, trimmed, without colours. */
export function errorLines(message) {
  const lines = String(message ?? '').replace(ANSI, '').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^at /.test(l) && !/^(>\s*)?\d*\s*\|/.test(l)); // no stack frames, no code frames
  const head = lines.slice(0, HEAD_LINES);
  const more = lines.slice(HEAD_LINES).filter((l) => /\bERROR\b|Error\b/.test(l) && !head.includes(l));
  return [...head, ...new Set(more)].slice(0, HEAD_LINES + MORE_LINES).map((l) => (l.length > WIDTH ? `${l.slice(0, WIDTH - 1)}…` : l));
}

/** A Vitest JSON report's failures: { title, message }. A file that failed to load is one. */
export function vitestFailures(report) {
  const out = [];
  for (const f of report?.testResults ?? []) {
    const failed = (f.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failed) out.push({ title: `${relative(f.name)} > ${a.fullName ?? a.title}`, message: (a.failureMessages ?? []).join('\n') });
    if (f.status === 'failed' && failed.length === 0) out.push({ title: relative(f.name), message: f.message ?? 'the file failed to run' });
  }
  return out;
}

/** A Playwright JSON report's failures (a test's last attempt, and errors outside tests): { title, message }. */
export function playwrightFailures(report) {
  const out = [];
  const walk = (suite, path) => {
    const here = suite.title && !/\.(spec|test)\.[cm]?[jt]s$/.test(suite.title) ? [...path, suite.title] : path;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        if (t.status !== 'unexpected') continue;
        const last = (t.results ?? []).at(-1);
        out.push({ title: [`${spec.file}:${spec.line}`, ...here, spec.title].join(' › '), message: (last?.errors ?? []).map((e) => e.message ?? '').join('\n') });
      }
    }
    for (const s of suite.suites ?? []) walk(s, here);
  };
  for (const s of report?.suites ?? []) walk(s, []);
  for (const e of report?.errors ?? []) out.push({ title: 'outside any test', message: e.message ?? '' });
  return out;
}

/** The block printed before the summary: `step: test` and its indented lines, for at most MAX_TESTS tests. */
export function failureBlock(results) {
  const all = results.flatMap((r) => (r.failures ?? []).map((f) => ({ step: r.name, ...f })));
  if (!all.length) return [];
  const lines = [];
  for (const f of all.slice(0, MAX_TESTS)) {
    lines.push(`${f.step}: ${f.title}`);
    for (const l of errorLines(f.message)) lines.push(`    ${l}`);
  }
  if (all.length > MAX_TESTS) lines.push(`… and ${all.length - MAX_TESTS} more (above, in each step's output)`);
  return lines;
}

const relative = (file) => String(file ?? '').replace(/^.*?\/(tests|e2e|e2e-electron)\//, '$1/');
