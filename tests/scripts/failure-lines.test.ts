// scripts/failure-lines.mjs: what `npm test` prints of each failed test at the end of its output (CI shows the
// tail). The reports are cut-down real ones: Vitest's `--reporter=json` and Playwright's JSON reporter.

import { describe, it, expect } from 'vitest';
import { errorLines, failureBlock, playwrightFailures, vitestFailures } from '../../scripts/failure-lines.mjs';

const vitestReport = {
  numFailedTests: 1,
  testResults: [
    { name: '/check/work/main/tests/file-size.test.ts', status: 'failed', message: '', assertionResults: [
      { status: 'passed', fullName: 'source file size a file under the limit', failureMessages: [] },
      { status: 'failed', fullName: 'source file size no .ts/.tsx file in electron/, shared/ or renderer/ has more than 600 lines',
        failureMessages: ['AssertionError: expected [ Array(1) ] to deeply equal []\n\n- Expected\n+ Received\n\n- []\n+ [\n+   "electron/shell/shell.ts: 635",\n+ ]\n    at /check/work/main/tests/file-size.test.ts:20:5'] },
    ] },
    { name: '/check/work/main/tests/broken.test.ts', status: 'failed', message: 'Failed to load url ./missing.ts (resolved id: ./missing.ts) in /check/work/main/tests/broken.test.ts', assertionResults: [] },
    { name: '/check/work/main/tests/fine.test.ts', status: 'passed', message: '', assertionResults: [{ status: 'passed', fullName: 'fine', failureMessages: [] }] },
  ],
};

const launchError = [
  '\u001b[31mlaunching the app: electron.launch: Timeout 90000ms exceeded.\u001b[39m',
  'Call log:',
  '  - <launching> /check/work/main/release/test/linux-unpacked/bivouac --inspect=0',
  '  - [pid=17493][err] [17493:1128/203506.980661:ERROR:bus.cc(407)] Failed to connect to the bus',
  "the app's log (/tmp/p/Bivouac/logs/bivouac.log) ends:",
  '2026-11-28T20:35:07.753Z INFO  starting Bivouac 0.1.0 (linux, packaged)',
  '2026-11-28T20:35:07.977Z ERROR could not start Error: the service process exited before it listened (exit 1)',
  '    at file:///check/work/main/dist/electron/shell/service-process.js:41:24',
].join('\n');

const playwrightReport = {
  suites: [{
    title: 'shell.spec.ts', file: 'shell.spec.ts', specs: [],
    suites: [{
      title: 'packaged test build (release/test/linux-unpacked)', file: 'shell.spec.ts',
      specs: [
        { title: 'differs from the shipped build', file: 'shell.spec.ts', line: 304, tests: [{ status: 'expected', results: [{ status: 'passed', errors: [] }] }] },
        { title: 'one window with the boards', file: 'shell.spec.ts', line: 322, tests: [{ status: 'unexpected', results: [
          { status: 'failed', errors: [{ message: 'an earlier attempt' }] },
          { status: 'failed', errors: [{ message: launchError }] },
        ] }] },
        { title: 'a flaky one', file: 'shell.spec.ts', line: 340, tests: [{ status: 'flaky', results: [{ status: 'failed', errors: [{ message: 'once' }] }, { status: 'passed', errors: [] }] }] },
      ],
    }],
  }],
  errors: [{ message: 'Error: globalSetup threw\n    at setup (/x/global-setup.ts:3:9)' }],
};

describe('the failed tests printed at the end of npm test', () => {
  it('reads a Vitest report: each failed test, and a file that failed to load; nothing of the tests that passed', () => {
    expect(vitestFailures(vitestReport).map((f) => f.title)).toEqual([
      'tests/file-size.test.ts > source file size no .ts/.tsx file in electron/, shared/ or renderer/ has more than 600 lines',
      'tests/broken.test.ts',
    ]);
    expect(vitestFailures({})).toEqual([]);
  });

  it('reads a Playwright report: a failed test\'s last attempt with its describe and line, errors outside tests; not a flaky one', () => {
    const f = playwrightFailures(playwrightReport);
    expect(f.map((x) => x.title)).toEqual(['shell.spec.ts:322 › packaged test build (release/test/linux-unpacked) › one window with the boards', 'outside any test']);
    expect(f[0].message).toBe(launchError);
  });

  it('keeps an error\'s first lines and its lines that name an error (the app log\'s ERROR line), without colours or stack frames', () => {
    expect(errorLines(launchError)).toEqual([
      'launching the app: electron.launch: Timeout 90000ms exceeded.',
      'Call log:',
      '- [pid=17493][err] [17493:1128/203506.980661:ERROR:bus.cc(407)] Failed to connect to the bus',
      '2026-11-28T20:35:07.977Z ERROR could not start Error: the service process exited before it listened (exit 1)',
    ]);
    expect(errorLines('x'.repeat(300))[0]).toHaveLength(200);
    // Playwright's code frame around the failing line is left out.
    expect(errorLines("Error: boom\n\n  1 | import x;\n> 2 | throw new Error('boom');\n    |       ^\n  3 | })")).toEqual(['Error: boom']);
    expect(errorLines(undefined)).toEqual([]);
  });

  it('prints each failed test under its step, five at most, and nothing when every test passed', () => {
    const block = failureBlock([
      { name: 'unit', failures: vitestFailures(vitestReport) },
      { name: 'e2e', failures: [] },
      { name: 'electron', failures: playwrightFailures(playwrightReport) },
    ]);
    expect(block).toEqual([
      'unit: tests/file-size.test.ts > source file size no .ts/.tsx file in electron/, shared/ or renderer/ has more than 600 lines',
      '    AssertionError: expected [ Array(1) ] to deeply equal []',
      '    - Expected',
      'unit: tests/broken.test.ts',
      '    Failed to load url ./missing.ts (resolved id: ./missing.ts) in /check/work/main/tests/broken.test.ts',
      'electron: shell.spec.ts:322 › packaged test build (release/test/linux-unpacked) › one window with the boards',
      '    launching the app: electron.launch: Timeout 90000ms exceeded.',
      '    Call log:',
      '    - [pid=17493][err] [17493:1128/203506.980661:ERROR:bus.cc(407)] Failed to connect to the bus',
      '    2026-11-28T20:35:07.977Z ERROR could not start Error: the service process exited before it listened (exit 1)',
      'electron: outside any test',
      '    Error: globalSetup threw',
    ]);
    const many = Array.from({ length: 7 }, (_, i) => ({ title: `t${i}`, message: `m${i}` }));
    expect(failureBlock([{ name: 'unit', failures: many }]).at(-1)).toBe('… and 2 more (above, in each step\'s output)');
    expect(failureBlock([{ name: 'unit', failures: [] }, { name: 'lint' }])).toEqual([]);
  });
});
