// Filters in the URL (issue #28): a board's filters live in the query of the hash
// (`#/projects/7/todos?status=pending&party=4`, `#/projects/7/report?from=…&to=…&person=…`), so a reload keeps
// them and a link shares them. Written with replaceState: a filter change is not a step of the Back button.

/** The query of a hash (after its first `?`). */
export const hashQuery = (hash: string): URLSearchParams => new URLSearchParams(hash.includes('?') ? hash.slice(hash.indexOf('?') + 1) : '');

/** The hash without its query. */
export const hashPath = (hash: string): string => (hash.includes('?') ? hash.slice(0, hash.indexOf('?')) : hash);

/** The current URL's filters. */
export const readFilters = (): URLSearchParams => hashQuery(typeof window === 'undefined' ? '' : window.location.hash);

/** Put a board's filters in the URL (empty values left out), if the URL still shows that board. */
export function writeFilters(board: string, values: Record<string, string | number | null | undefined>): void {
  if (typeof window === 'undefined') return;
  const path = hashPath(window.location.hash);
  if (!new RegExp(`^#/projects/\\d+/${board}$`).test(path)) return;
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  const next = s ? `${path}?${s}` : path;
  if (next !== window.location.hash) window.history.replaceState(window.history.state, '', next);
}

/** A date of the form YYYY-MM-DD, else undefined. */
export const dateParam = (v: string | null): string | undefined => (v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);
/** A positive integer id, else undefined. */
export const idParam = (v: string | null): number | undefined => (v && /^[1-9]\d{0,15}$/.test(v) ? Number(v) : undefined);
