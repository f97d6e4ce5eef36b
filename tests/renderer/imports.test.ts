// The renderer's modules form no import cycle (the boards once imported App.tsx, which imports them).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(n) && !/\.test\.tsx?$/.test(n) ? [p] : [];
  });
}

/** Every cycle of relative imports among `paths` (each as a list of files). */
export function cycles(paths: readonly string[], read: (p: string) => string): string[][] {
  const deps = new Map<string, string[]>();
  for (const p of paths) {
    const src = read(p);
    const out: string[] = [];
    for (const m of src.matchAll(/^\s*import\s+(?!type\s)[^'"]*?from\s+'(\.[^']+)'/gm)) out.push(resolve(dirname(p), m[1]));
    deps.set(p, out.filter((d) => paths.includes(d)));
  }
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (p: string) => {
    state.set(p, 'open');
    stack.push(p);
    for (const d of deps.get(p) ?? []) {
      if (state.get(d) === 'open') found.push(stack.slice(stack.indexOf(d)).concat(d));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(p, 'done');
  };
  for (const p of paths) if (!state.has(p)) visit(p);
  return found;
}

describe('renderer imports', () => {
  it('the cycle finder finds a cycle', () => {
    const src: Record<string, string> = { '/a.ts': "import { b } from './b.ts';", '/b.ts': "import { a } from './a.ts';", '/c.ts': "import type { a } from './a.ts';" };
    expect(cycles(Object.keys(src), (p) => src[p])).toEqual([['/a.ts', '/b.ts', '/a.ts']]);
  });
  it('have no cycle', () => {
    const all = files(join(root, 'renderer'));
    expect(all.length).toBeGreaterThan(10);
    expect(cycles(all, (p) => readFileSync(p, 'utf8')).map((c) => c.map((p) => p.slice(root.length + 1)))).toEqual([]);
  });
});
