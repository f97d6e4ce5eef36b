// Where tests live (issue #30, D326): under tests/, in the folder that mirrors the source folder of the module
// they test (tests/electron/sync/engine.test.ts tests electron/sync/engine.ts), so that the test of a module is
// where one looks for it. Helpers are in tests/support/, data in tests/fixtures/; this file is the one test at
// the top of tests/ with file-size.test.ts (both hold rules of the whole tree, not of one module). The lists of vitest.config.ts name files by path: each must exist.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ON_BOTH, ON_FILE, RENDERER_IN_NODE } from '../vitest.config.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The top folders of the source tree that tests mirror. */
const SOURCE_ROOTS = ['electron', 'shared', 'renderer', 'scripts', 'eslint-rules', 'bench'];
/** Folders of tests/ that hold no tests. */
const SUPPORT = ['tests/support', 'tests/fixtures'];
/** Never searched: installed, built or generated. */
const SKIP = new Set(['node_modules', 'dist', 'release', 'test-results', 'playwright-report', 'coverage']);
/** The tests of rules over the whole tree (where tests live, how long a source file may be): at the top of tests/. */
const TREE_WIDE = ['tests/file-size.test.ts', 'tests/layout.test.ts'];
const isTest = (f: string) => /\.test\.[cm]?[jt]sx?$/.test(f);

/** Every file below `dir`, relative to the repository, with `/` separators. */
function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const rel = dir ? `${dir}/${name}` : name;
    if (statSync(join(root, rel)).isDirectory()) walk(rel, out);
    else out.push(rel);
  }
  return out;
}

/** What is wrong with the place of the test file `rel` (repository-relative), or null. */
function misplaced(rel: string, isDir: (p: string) => boolean): string | null {
  if (!rel.startsWith('tests/')) return `${rel}: tests live under tests/, in the folder mirroring the module's (tests/${rel})`;
  if (TREE_WIDE.includes(rel)) return null;
  const parts = rel.split('/');
  const dir = parts.slice(1, -1).join('/');
  if (!dir) return `${rel}: not at the top of tests/: in the folder of the module it tests (tests/electron/…, tests/shared/…, tests/renderer/…)`;
  if (SUPPORT.some((s) => rel.startsWith(`${s}/`))) return `${rel}: ${parts[1]}/ holds helpers and data, not tests`;
  if (!SOURCE_ROOTS.includes(parts[1]) || !isDir(dir)) return `${rel}: tests/${dir}/ mirrors no source folder (there is no ${dir}/)`;
  return null;
}

const isDir = (p: string) => existsSync(join(root, p)) && statSync(join(root, p)).isDirectory();

describe('the layout of the tests', () => {
  it('every test file sits under tests/, in a folder mirroring a source folder', () => {
    const tests = walk('').filter(isTest);
    expect(tests.length).toBeGreaterThan(100);
    expect(tests.map((f) => misplaced(f, isDir)).filter(Boolean)).toEqual([]);
  });

  it('tells what is wrong with a misplaced test', () => {
    expect(misplaced('tests/electron/sync/engine.test.ts', isDir)).toBeNull();
    expect(misplaced('tests/renderer/components/People.test.tsx', isDir)).toBeNull();
    expect(misplaced('tests/sync.test.ts', isDir)).toMatch(/not at the top of tests/);
    expect(misplaced('shared/sync/plan.test.ts', isDir)).toMatch(/under tests\//);
    expect(misplaced('renderer/lib/csv.test.ts', isDir)).toMatch(/under tests\//);
    expect(misplaced('tests/electron/syncing/engine.test.ts', isDir)).toMatch(/no electron\/syncing\//);
    expect(misplaced('tests/docs/decisions.test.ts', isDir)).toMatch(/mirrors no source folder/);
    expect(misplaced('tests/support/helpers.test.ts', isDir)).toMatch(/helpers and data/);
  });

  it('the files vitest.config.ts names (PostgreSQL, SQLite on a file, renderer checks in Node) exist', () => {
    const named = [...ON_BOTH, ...ON_FILE, ...RENDERER_IN_NODE];
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((f) => !existsSync(join(root, ...f.split('/'))))).toEqual([]);
  });

  it('helpers and data are in tests/support/ and tests/fixtures/, nothing else at the top of tests/', () => {
    const top = readdirSync(join(root, 'tests')).filter((n) => !isDir(`tests/${n}`));
    expect(top.sort()).toEqual(TREE_WIDE.map((f) => f.slice('tests/'.length)));
  });
});
