import { describe, expect, it } from 'vitest';
import { inline, plainText, safeHref, textile } from '../../shared/textile.ts';

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
  it('list lines right under a line of text make a list (issue #28); a list ends at a text line', () => {
    expect(textile('Pack:\n* rope\n* helmet\nThen go\n# one')).toEqual([
      { t: 'p', children: [{ t: 'text', text: 'Pack:' }] },
      { t: 'ul', items: [[{ t: 'text', text: 'rope' }], [{ t: 'text', text: 'helmet' }]] },
      { t: 'p', children: [{ t: 'text', text: 'Then go' }] },
      { t: 'ol', items: [[{ t: 'text', text: 'one' }]] },
    ]);
    expect(textile('*bold* start\nnext')).toEqual([{ t: 'p', children: [{ t: 'strong', children: [{ t: 'text', text: 'bold' }] }, { t: 'text', text: ' start' }, { t: 'br' }, { t: 'text', text: 'next' }] }]);
  });
  it('plain text of a body: no markup, links by their words, items joined', () => {
    expect(plainText('Bring *these* and "the map":https://example.com/map:\n* rope\n* helmet\n\nThen _go_.')).toBe('Bring these and the map: rope · helmet · Then go.');
    expect(plainText('<b>x</b>\n\n\n')).toBe('<b>x</b>');
  });
});
