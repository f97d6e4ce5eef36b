import { describe, expect, it } from 'vitest';
import { inline, safeHref, textile } from './textile.ts';

describe('textile subset', () => {
  it('paragraphs, line breaks, emphasis, links and lists', () => {
    expect(textile('Hello *team*,\nsee _this_.\n\n* one\n* "two":https://example.com/a\n\n# first\n# second')).toEqual([
      { t: 'p', children: [{ t: 'text', text: 'Hello ' }, { t: 'strong', children: [{ t: 'text', text: 'team' }] }, { t: 'text', text: ',' }, { t: 'br' },
        { t: 'text', text: 'see ' }, { t: 'em', children: [{ t: 'text', text: 'this' }] }, { t: 'text', text: '.' }] },
      { t: 'ul', items: [[{ t: 'text', text: 'one' }], [{ t: 'link', href: 'https://example.com/a', children: [{ t: 'text', text: 'two' }] }]] },
      { t: 'ol', items: [[{ t: 'text', text: 'first' }], [{ t: 'text', text: 'second' }]] },
    ]);
  });
  it('bare URLs become links; the full stop after them does not', () => {
    expect(inline('See https://example.com/x.')).toEqual([{ t: 'text', text: 'See ' }, { t: 'link', href: 'https://example.com/x', children: [{ t: 'text', text: 'https://example.com/x' }] }, { t: 'text', text: '.' }]);
  });
  it('never makes a link of javascript:, data: or other schemes; markup stays text', () => {
    expect(safeHref('javascript:alert(1)')).toBe(false);
    expect(safeHref('JaVaScRiPt:alert(1)')).toBe(false);
    expect(safeHref('data:text/html,<script>')).toBe(false);
    expect(inline('"x":javascript:alert(1)')).toEqual([{ t: 'text', text: '"x":javascript:alert(1)' }]);
    expect(textile('<img src=x onerror=alert(1)> <script>alert(1)</script>')).toEqual([{ t: 'p', children: [{ t: 'text', text: '<img src=x onerror=alert(1)> <script>alert(1)</script>' }] }]);
  });
  it('a star inside a word or an unclosed one is text', () => {
    expect(inline('2*3*4 and *open')).toEqual([{ t: 'text', text: '2*3*4 and *open' }]);
    expect(inline('snake_case_name')).toEqual([{ t: 'text', text: 'snake_case_name' }]);
  });
});
