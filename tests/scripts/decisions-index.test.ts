// The index at the top of docs/decisions.md is generated (scripts/decisions-index.ts, `npm run docs:decisions`)
// from the entries' headings and their `- **Status**: …` lines: it must be exactly what the script writes.

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DECISIONS, END, readEntries, renderIndex, slugger, START, withIndex } from '../../scripts/decisions-index.ts';

const doc = (body: string) => `# Decisions\n\n${START}\n${END}\n\n${body}`;

describe('docs/decisions.md', () => {
  it('has the index `npm run docs:decisions` generates (run it after adding an entry or changing a status)', () => {
    const committed = readFileSync(DECISIONS, 'utf8');
    expect(committed === withIndex(committed), 'the index of docs/decisions.md is stale: run `npm run docs:decisions` and commit it').toBe(true);
  });

  it('indexes every entry once, and every superseded entry names one that exists', () => {
    const entries = readEntries(readFileSync(DECISIONS, 'utf8'));
    expect(entries.length).toBeGreaterThan(150);
    for (const e of entries.filter((x) => x.kind === 'superseded')) {
      const by = Number(/^superseded by D(\d+)/.exec(e.status)![1]);
      expect(entries.some((x) => x.n === by), `D${e.n}`).toBe(true);
    }
  });
});

describe('the index generator', () => {
  it('lists entries by number with their status, and a new entry changes the index (the comparison can fail)', () => {
    const before = doc('## D2. Second\ntext\n\n## D1. First `code`, (issue #6) ≥ 0.5 – a/b\n- **Status**: superseded by D2 (why)\n');
    const out = withIndex(before);
    expect(out).toContain('| [D1](#d1-first-code-issue-6--05--ab) | First `code`, (issue #6) ≥ 0.5 – a/b | superseded by [D2](#d2-second) (why) |');
    expect(out.indexOf('[D1]')).toBeLessThan(out.indexOf('| [D2]'));
    expect(out).toContain('| [D2](#d2-second) | Second | current |');
    expect(withIndex(out)).toBe(out);
    expect(withIndex(`${out}\n## D3. Third\n- **Status**: reverted (abc1234)\n`)).toContain('| [D3](#d3-third) | Third | reverted (abc1234) |');
  });

  it('refuses a number used twice, an unknown status, a status naming no entry, and missing markers', () => {
    expect(() => readEntries('## D5. A\n\n## D5. B\n')).toThrow(/D5 is used by two entries/);
    expect(() => readEntries('## D5. A\n- **Status**: obsolete\n')).toThrow(/must start with/);
    expect(() => readEntries('## D5. A\n- **Status**: superseded by D9\n')).toThrow(/names D9/);
    expect(() => withIndex('## D5. A\n')).toThrow(/markers/);
  });

  it('reads no heading or status inside a code block', () => {
    const entries = readEntries('## D1. A\n```sh\n# not a heading\n- **Status**: reverted\n```\n- **Status**: reverted\n');
    expect(entries.map((e) => [e.n, e.kind])).toEqual([[1, 'reverted']]);
  });

  it('gives repeated headings the anchors GitHub gives them', () => {
    const slug = slugger();
    expect(['A b', 'A b', 'A b-1', 'A b'].map(slug)).toEqual(['a-b', 'a-b-1', 'a-b-1-1', 'a-b-2']);
    expect(renderIndex([])).toContain('0 decisions');
  });
});
