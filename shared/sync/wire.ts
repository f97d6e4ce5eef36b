// Remote records on the wire (XML, contract §4) <-> plain rows keyed by column name. Pure: no I/O.
// A decoded row holds the remote's ids; shared/sync/ids.ts rewrites them to local ids and back.

import { child, type XNode } from '../codec/in.ts';
import { column, RESOURCES, TABLE_ORDER, type Field, type Resource, type ResourceKey } from '../registry.ts';

export type Value = string | number | null;
/** A record as stored columns (snake_case) with scalar values; booleans are 0/1. */
export type WireRow = Record<string, Value>;

const BY_TABLE: ReadonlyMap<string, ResourceKey> = new Map(TABLE_ORDER.map((k) => [RESOURCES[k].table, k]));
export const resourceOfTable = (table: string): ResourceKey | undefined => BY_TABLE.get(table);

function scalar(f: Field, n: XNode): Value {
  if (n.nil) return null;
  const t = n.text;
  switch (f.type) {
    case 'integer': return t.trim() === '' ? null : Number(t);
    case 'float': return t.trim() === '' ? null : Number(t);
    case 'boolean': return t.trim() === 'true' ? 1 : 0;
    default: return t;
  }
}

/**
 * The stored columns of one remote record element. Fields the remote hides from this caller are
 * absent (not null). Nested `company` of projects gives `company_id`; `can-see-private` of
 * companies gives `firm`.
 */
export function decodeRecord(r: Resource, n: XNode): WireRow {
  const out: WireRow = {};
  for (const f of r.fields) {
    const c = child(n, f.name);
    if (!c) continue;
    if (f.type === 'nested' && f.name === 'company') {
      const id = child(c, 'id');
      if (id) out.company_id = Number(id.text);
      continue;
    }
    if (f.name === 'can-see-private') { out.firm = c.text.trim() === 'true' ? 1 : 0; continue; }
    if (!f.stored) {
      // Cheap-diff hints of a full scan (comments of a post changed?) are kept, prefixed.
      if (f.name === 'comments-count' || f.name === 'commented-at') out[`_${column(f.name)}`] = scalar(f, c);
      continue;
    }
    out[column(f.name)] = scalar(f, c);
  }
  // A post's milestone-id is 0 when none (§8.5); stored as null.
  if (r.key === 'post' && out.milestone_id === 0) out.milestone_id = null;
  return out;
}

/** The records of a collection document (or the single record of a record document). */
export function decodeCollection(r: Resource, root: XNode | null): WireRow[] {
  if (!root) return [];
  if (root.attrs.type === 'array' || root.name === r.collection) return root.children.map((c) => decodeRecord(r, c));
  return [decodeRecord(r, root)];
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One input element (contract §2.5); null is sent as nil="true". */
export function element(name: string, v: Value): string {
  if (v === null) return `<${name} nil="true"></${name}>`;
  return `<${name}>${esc(String(v))}</${name}>`;
}

/** `<element>…</element>` (optionally inside `<request>`). */
export function recordBody(r: Resource, inner: string, wrap = false): string {
  const rec = `<${r.element}>${inner}</${r.element}>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${wrap ? `<request>${rec}</request>` : rec}`;
}

/** A reorder body (§8.8, §8.9). */
export function reorderBody(r: Resource, ids: readonly number[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${r.collection} type="array">${ids.map((i) => `<${r.element}><id>${i}</id></${r.element}>`).join('')}</${r.collection}>`;
}

/**
 * Why a decoded remote row cannot be stored faithfully here (D251), or null: an id that is not a
 * positive safe integer, or a number that is not finite or is an integer beyond 2^53 (JSON and
 * `Number()` round such values silently; SQLite would then refuse to read them back).
 */
export function unrepresentable(row: WireRow): string | null {
  if (typeof row.id !== 'number' || !Number.isSafeInteger(row.id) || row.id <= 0) return `its id (${String(row.id)}) is not a positive integer below 2^53`;
  for (const [k, v] of Object.entries(row)) {
    if (typeof v === 'number' && (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v)))) return `its ${k} (${v}) cannot be represented`;
  }
  return null;
}
