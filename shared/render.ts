// The HTML rendering of a post's body (contract §8.5, `display-body`): escaped paragraphs.
// Pure: the renderer uses it for previews, the server for `display-body`.

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/**
 * Empty input gives "". Otherwise: `\r\n` becomes `\n`; leading and trailing newlines go; `& < > "`
 * are escaped; runs of two or more newlines split paragraphs; a single `\n` becomes `<br />`;
 * each paragraph is wrapped in `<p>…</p>`; paragraphs are joined with `\n\n`.
 */
export function renderBody(s: string | null | undefined): string {
  if (!s) return '';
  const t = s.replace(/\r\n/g, '\n').replace(/^\n+/, '').replace(/\n+$/, '');
  return t
    .replace(/[&<>"]/g, (c) => ESC[c])
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, '<br />')}</p>`)
    .join('\n\n');
}

/** `display-extended-body`: nil when the extended body is empty, else its rendering. */
export const renderExtended = (s: string | null | undefined): string | null => (s ? renderBody(s) : null);
