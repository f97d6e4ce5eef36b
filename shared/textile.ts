// A safe subset of Textile (what message bodies of the original service used, `use-textile`): paragraphs,
// line breaks, *strong*, _emphasis_, "links":https://…, and * / # lists. The result is a tree of plain
// data, never HTML: the renderer builds elements from it, so no markup in a body can reach the page.
// Links are kept only for http, https and mailto (D99).

export type Inline = { t: 'text'; text: string } | { t: 'strong' | 'em'; children: Inline[] } | { t: 'link'; href: string; children: Inline[] } | { t: 'br' };
export type Block = { t: 'p'; children: Inline[] } | { t: 'ul' | 'ol'; items: Inline[][] };

const SAFE_URL = /^(https?:\/\/|mailto:)[^\s<>"]+$/i;

/** Is this URL one a link may point to? */
export const safeHref = (u: string): boolean => SAFE_URL.test(u);

export function inline(s: string): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = () => { if (text) { out.push({ t: 'text', text }); text = ''; } };
  let i = 0;
  while (i < s.length) {
    const rest = s.slice(i);
    // "label":url — the url ends at whitespace; a trailing . , ; : ! ? ) stays outside it
    const link = /^"([^"\n]+)":((?:https?:\/\/|mailto:)[^\s<>"]*[^\s<>".,;:!?)])/i.exec(rest);
    if (link && safeHref(link[2])) { flush(); out.push({ t: 'link', href: link[2], children: inline(link[1]) }); i += link[0].length; continue; }
    const bare = /^(https?:\/\/[^\s<>"]*[^\s<>".,;:!?)])/i.exec(rest);
    if (bare && (i === 0 || /[\s(]/.test(s[i - 1]))) { flush(); out.push({ t: 'link', href: bare[1], children: [{ t: 'text', text: bare[1] }] }); i += bare[0].length; continue; }
    const mark = rest[0] === '*' ? 'strong' : rest[0] === '_' ? 'em' : null;
    if (mark && (i === 0 || /[\s(["']/.test(s[i - 1]))) {
      const ch = rest[0];
      const end = rest.indexOf(ch, 1);
      const body = end > 1 ? rest.slice(1, end) : '';
      const after = rest[end + 1];
      if (body && !/^\s|\s$/.test(body) && !body.includes('\n') && (after === undefined || /[\s.,;:!?)"'\]]/.test(after))) {
        flush(); out.push({ t: mark, children: inline(body) }); i += end + 1; continue;
      }
    }
    if (rest[0] === '\n') { flush(); out.push({ t: 'br' }); i++; continue; }
    text += rest[0];
    i++;
  }
  flush();
  return out;
}

export function textile(src: string): Block[] {
  const blocks: Block[] = [];
  const paras = src.replace(/\r\n?/g, '\n').split(/\n{2,}/).map((p) => p.replace(/^\n+|\n+$/g, '')).filter((p) => p.trim() !== '');
  // Lines starting with "* " or "# " make a list wherever they are, also right under a line of text
  // (what the editor's hint promises, issue #28): a paragraph is cut into runs of text and of list lines.
  const kindOf = (l: string): 'ul' | 'ol' | null => (/^\* /.test(l) ? 'ul' : /^# /.test(l) ? 'ol' : null);
  for (const p of paras) {
    let text: string[] = [];
    let list: { t: 'ul' | 'ol'; items: Inline[][] } | null = null;
    const endText = () => { if (text.length) blocks.push({ t: 'p', children: inline(text.join('\n').replace(/^p\. /, '')) }); text = []; };
    for (const l of p.split('\n')) {
      const kind = kindOf(l);
      if (!kind) { list = null; text.push(l); continue; }
      endText();
      if (list && list.t === kind) list.items.push(inline(l.slice(2)));
      else { list = { t: kind, items: [inline(l.slice(2))] }; blocks.push(list); }
    }
    endText();
  }
  return blocks;
}

const flat = (xs: Inline[]): string => xs.map((x) => (x.t === 'text' ? x.text : x.t === 'br' ? ' ' : flat(x.children))).join('');

/** A body as one line of plain text (message excerpts, issue #28): markup gone, links by their words,
 *  list items and paragraphs joined by " · " (after a colon, by a space). */
export function plainText(src: string): string {
  let out = '';
  for (const b of textile(src)) {
    const t = (b.t === 'p' ? flat(b.children) : b.items.map(flat).join(' · ')).replace(/\s+/g, ' ').trim();
    if (!t) continue;
    out = out ? `${out}${out.endsWith(':') ? ' ' : ' · '}${t}` : t;
  }
  return out;
}
