// No source file over 600 lines in electron/, shared/ or renderer/ (issue #30): a file that grows past it is
// split by what its parts do (e.g. store/postgres.ts: the pool, locks and connections; postgres-writer.ts: the
// Writer), not left to grow.

import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_LINES = 600;
/** Files allowed over the limit for now, each with why; an entry goes when its file is split. */
const ALLOWED: Readonly<Record<string, string>> = {};

/** Every .ts/.tsx file under `dir` (node_modules and dist aside), as paths relative to the root. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== 'dist') out.push(...sources(p));
    } else if (/\.tsx?$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Lines as `wc -l` counts them, plus a last line without its newline. */
export function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}

describe('source file size', () => {
  it('counts lines as wc -l does, and a last line without a newline', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\n')).toBe(1);
    expect(lineCount('a\nb')).toBe(2);
    expect(lineCount('a\n\n')).toBe(2);
  });

  it(`no .ts/.tsx file in electron/, shared/ or renderer/ has more than ${MAX_LINES} lines`, () => {
    const files = ['electron', 'shared', 'renderer'].flatMap(sources);
    expect(files).toContain('electron/store/postgres.ts'); // the walk found the tree
    const over = files
      .map((f) => ({ f, n: lineCount(readFileSync(join(root, f), 'utf8')) }))
      .filter(({ f, n }) => n > MAX_LINES && !(f in ALLOWED))
      .map(({ f, n }) => `${f}: ${n} lines`);
    expect(over).toEqual([]);
  });
});
