// renderBody (display-body, contract §8.5) against the implementation it replaced (D197), kept here as
// the reference: several passes (CRLF, leading and trailing newlines, escaping, split, wrap, join).

import { describe, expect, it } from 'vitest';
import { renderBody, renderExtended } from '../../shared/render.ts';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
function reference(s: string | null | undefined): string {
  if (!s) return '';
  const t = s.replace(/\r\n/g, '\n').replace(/^\n+/, '').replace(/\n+$/, '');
  return t
    .replace(/[&<>"]/g, (c) => ESC[c])
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, '<br />')}</p>`)
    .join('\n\n');
}

/** A seeded generator: the same inputs every run. */
function rng(seed: number): () => number {
  return () => { seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648; return seed / 2_147_483_648; };
}
// Newlines and carriage returns often (runs of them decide paragraphs), the escaped characters, text,
// a character outside the BMP, a lone surrogate, NUL.
const ALPHABET = ['\n', '\n', '\n', '\r', '\r\n', '&', '<', '>', '"', "'", 'a', 'b', ' ', 'é', '😀', '\uD800', '\u0000', '&amp;', 'p>'];

describe('renderBody', () => {
  it('gives what the reference gives, for 20,000 random bodies', () => {
    const r = rng(7);
    let different = 0;
    for (let k = 0; k < 20_000; k++) {
      const len = Math.floor(r() * (k % 10 === 0 ? 200 : 14));
      let s = '';
      for (let i = 0; i < len; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)];
      if (renderBody(s) !== reference(s)) { different++; expect(renderBody(s), JSON.stringify(s)).toBe(reference(s)); }
    }
    expect(different).toBe(0);
  });

  it('edge cases: empty, null, only newlines, no newline, CR alone, CRLF runs', () => {
    for (const s of [null, undefined, '', '\n', '\n\n\n', '\r', '\r\n', '\r\r\n', 'x', 'x\r', '\r\n\r\nx\r\n\r\n', 'a\n\n\nb\nc', '"&<>"']) {
      expect(renderBody(s)).toBe(reference(s));
    }
    expect(renderBody('Fish & chips\n\nline one\nline two')).toBe('<p>Fish &amp; chips</p>\n\n<p>line one<br />line two</p>');
    expect(renderExtended('')).toBeNull();
    expect(renderExtended('a\nb')).toBe('<p>a<br />b</p>');
  });
});
