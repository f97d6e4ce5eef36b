// The HTML rendering of a post's body (contract §8.5, `display-body`): escaped paragraphs.
// Pure: the renderer uses it for previews, the server for `display-body`.

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const ESC_TEST = /[&<>"]/;
const ESC_RE = /[&<>"]/g;

/**
 * Empty input gives "". Otherwise: `\r\n` becomes `\n`; leading and trailing newlines go; `& < > "`
 * are escaped; runs of two or more newlines split paragraphs; a single `\n` becomes `<br />`;
 * each paragraph is wrapped in `<p>…</p>`; paragraphs are joined with `\n\n`.
 */
export function renderBody(s: string | null | undefined): string {
  if (!s) return '';
  // The same steps in fewer passes (D197): each pass below is skipped when it has nothing to do.
  let t = s.includes('\r') ? s.replace(/\r\n/g, '\n') : s;
  let a = 0;
  let b = t.length;
  while (a < b && t.charCodeAt(a) === 10) a++;
  while (b > a && t.charCodeAt(b - 1) === 10) b--;
  if (a > 0 || b < t.length) t = t.slice(a, b);
  if (ESC_TEST.test(t)) t = t.replace(ESC_RE, (c) => ESC[c]);
  if (!t.includes('\n')) return `<p>${t}</p>`;
  return `<p>${t.replace(/\n\n+|\n/g, (m) => (m.length > 1 ? '</p>\n\n<p>' : '<br />'))}</p>`;
}

/** `display-extended-body`: nil when the extended body is empty, else its rendering. */
export const renderExtended = (s: string | null | undefined): string | null => (s ? renderBody(s) : null);
