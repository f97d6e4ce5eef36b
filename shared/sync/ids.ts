// Id rewriting between local ids and remote ids (issue #8). Records created offline keep their
// local ids for local callers forever; the id map links them to remote ids once created. Pure.

import { refResource, type ResourceKey } from '../registry.ts';
import type { WireRow } from './wire.ts';

/** The resource a column of a row points at (null when it is not a reference): the registry's links (D320). */
export { refResource };

/** Looks an id up in the map (local -> remote or remote -> local); undefined when unmapped. */
export type IdLookup = (resource: ResourceKey, id: number) => number | undefined;

export interface Rewritten { readonly row: WireRow; readonly missing: readonly { resource: ResourceKey; id: number; col: string }[] }

/**
 * Rewrite every reference column of a row (and its `id` when `self` is given) through `map`.
 * Null and 0 stay as they are; an unmapped reference is reported in `missing` and left unchanged.
 */
export function rewriteIds(row: WireRow, map: IdLookup, self?: ResourceKey): Rewritten {
  const out: WireRow = { ...row };
  const missing: { resource: ResourceKey; id: number; col: string }[] = [];
  for (const col of Object.keys(row)) {
    const res = col === 'id' ? self ?? null : refResource(col, row);
    const v = row[col];
    if (!res || v === null || v === 0 || typeof v !== 'number') continue;
    const m = map(res, v);
    if (m === undefined) missing.push({ resource: res, id: v, col });
    else out[col] = m;
  }
  return { row: out, missing };
}
