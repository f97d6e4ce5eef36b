// The renderer's style sheet is one file that several changes append to: a block left open by a merge puts
// every rule after it inside a media query (they then apply at some widths only), which no type check sees.

import { it, expect } from 'vitest';
import { readFileSync } from 'node:fs';

it('renderer/styles.css: every block is closed, and none closes twice', () => {
  const css = readFileSync(new URL('../../renderer/styles.css', import.meta.url), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '') // comments
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'); // strings (content: '{')
  let depth = 0;
  const unbalanced: number[] = [];
  css.split('\n').forEach((line, i) => {
    for (const ch of line) {
      if (ch === '{') depth++;
      else if (ch === '}' && --depth < 0) { unbalanced.push(i + 1); depth = 0; }
    }
  });
  expect(unbalanced).toEqual([]);
  expect(depth).toBe(0);
  expect(css).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)/m);
});
