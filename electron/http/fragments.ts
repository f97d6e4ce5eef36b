// Rendered records kept for re-use across answers (D185): the text of one record in a collection
// document, keyed by the record's id and version, the values of its fields that can change without
// its version (counts and names computed from other records, a reference a client may not see), the
// field list, element, format and kind of viewer. A list whose records did not change since it was
// last answered is written by joining kept texts; any write to a record gives it a new version, so a
// changed record is never served from here, and a write elsewhere does not drop what is kept (as it
// does for whole answers in the response cache, D11). Only rows that carry their `version` (read
// through the store's row cache, store/queries/rows.ts) are kept. Bounded by bytes, oldest first out.
// One per app instance: no module-level state.

import { column, type Field, type Resource } from '../../shared/registry.ts';
import { jsonOne, recordWriter, xmlManyFrame, type RecordsWriter, type Row, type View } from '../../shared/codec/out.ts';

/** What decides a record's text besides its id and version, for one field list. */
interface Plan {
  /** Columns whose values can change while the record's version does not. */
  readonly volatile: readonly string[];
  /** The text depends on who the caller is (not only on firm/admin): `adminOrSelf`, `me`. */
  readonly byCaller: boolean;
}

interface Entry { readonly v: number; readonly sig: string; readonly text: string }

/** A field list's plan, or null when its records cannot be kept (nested records or arrays of them). */
function planOf(fields: readonly Field[]): Plan | null {
  const volatile: string[] = [];
  let byCaller = false;
  for (const f of fields) {
    if (f.type === 'array' || f.type === 'nested') return null;
    if ((!f.stored && !f.fromRow) || f.ref === 'milestone' || f.nameOf) volatile.push(column(f.name));
    if (f.show === 'adminOrSelf' || f.show === 'me') byCaller = true;
  }
  return { volatile, byCaller };
}

/** The volatile values of a row as one string; each value tagged with its type and length. */
function signature(row: Row, cols: readonly string[]): string {
  let s = '';
  for (let k = 0; k < cols.length; k++) {
    const v = row[cols[k]];
    if (v === null || v === undefined) s += '~';
    else if (typeof v === 'number') s += `n${v};`;
    else {
      const t = String(v);
      s += `${typeof v === 'string' ? 's' : 'o'}${t.length}:${t}`;
    }
  }
  return s;
}

/**
 * The string as one flat piece. A record's text is built by concatenation, which V8 keeps as a tree of
 * pieces (a rope) until something needs it whole; kept as a rope it would be walked again by every list
 * it goes into (50 kept ropes joined and measured: 56 µs, flat: 17 µs) and hold ~30 pieces in memory.
 * Converting a string to a number makes V8 flatten it in place (the idiom of the `flatstr` package).
 */
function flat(s: string): string {
  Number(s);
  return s;
}

export class FragmentCache {
  private readonly map = new Map<string, Map<number, Entry>>();
  private readonly plans = new WeakMap<readonly Field[], { plan: Plan | null; id: number }>();
  private nextId = 0;
  private bytes = 0;
  private count = 0;
  readonly maxBytes: number;
  constructor(maxBytes = 24 * 1024 * 1024) {
    this.maxBytes = maxBytes;
  }

  get enabled(): boolean { return this.maxBytes > 0; }

  get size(): { entries: number; bytes: number } { return { entries: this.count, bytes: this.bytes }; }

  private planned(fields: readonly Field[]): { plan: Plan | null; id: number } {
    let p = this.plans.get(fields);
    if (!p) this.plans.set(fields, p = { plan: planOf(fields), id: this.nextId++ });
    return p;
  }

  /** The records of one document kind: format, element, indentation, field list, kind of viewer. */
  private part(fmt: string, element: string, indent: string, fieldsId: number, plan: Plan, view: View): Map<number, Entry> {
    const key = `${fmt}\u0000${element}\u0000${indent}\u0000${fieldsId}\u0000${view.admin ? 1 : 0}${view.firm ? 1 : 0}${view.me ? 1 : 0}${plan.byCaller ? `:${view.callerId}` : ''}`;
    let m = this.map.get(key);
    if (!m) this.map.set(key, m = new Map());
    return m;
  }

  /** The text of `row`, kept or made by `make` (and kept when the row carries its version). */
  private text(part: Map<number, Entry>, plan: Plan, row: Row, make: () => string): string {
    const v = row.version;
    if (typeof v !== 'number' || !Number.isFinite(v)) return make();
    const id = Number(row.id);
    const sig = signature(row, plan.volatile);
    const e = part.get(id);
    if (e !== undefined && e.v === v && e.sig === sig) return e.text;
    const text = flat(make());
    if (e !== undefined) this.bytes -= e.text.length + e.sig.length + 64;
    else this.count++;
    part.set(id, { v, sig, text });
    this.bytes += text.length + sig.length + 64;
    if (this.bytes > this.maxBytes) this.evict();
    return text;
  }

  /** Drop the oldest entries (by insertion) of every kind until half the budget is free. */
  private evict(): void {
    for (const part of this.map.values()) {
      for (const [id, e] of part) {
        if (this.bytes <= this.maxBytes / 2) return;
        part.delete(id);
        this.bytes -= e.text.length + e.sig.length + 64;
        this.count--;
      }
    }
  }

  /** A collection document (as `xmlMany`), or undefined when its records cannot be kept. */
  xmlMany(
    r: Resource, rows: readonly Row[], view: View,
    opts: { fields?: readonly Field[]; root?: string; element?: string; attrs?: Record<string, string | number> } = {},
  ): string | undefined {
    if (!this.enabled) return undefined;
    const frame = xmlManyFrame(r, opts);
    const { plan, id } = this.planned(frame.fields);
    if (!plan) return undefined;
    const part = this.part('x', frame.element, '  ', id, plan, view);
    const write = recordWriter(frame.element, frame.fields, '  ');
    let out = frame.head;
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k];
      out += this.text(part, plan, row, () => write(row, view));
    }
    return out + frame.tail;
  }

  /**
   * The records of an array field inside a record (a todo list's todo-items), for the XML writer
   * (`xmlOne`/`xmlMany`'s `records`): kept texts where the records can be kept, as `H.records` writes them.
   */
  readonly records: RecordsWriter = (el, fields, rows, view, indent) => {
    const { plan, id } = this.planned(fields);
    const write = recordWriter(el, fields, indent);
    let out = '';
    if (!plan || !this.enabled) {
      for (let k = 0; k < rows.length; k++) out += write(rows[k], view);
      return out;
    }
    const part = this.part('x', el, indent, id, plan, view);
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k];
      out += this.text(part, plan, row, () => write(row, view));
    }
    return out;
  };

  /** A JSON array of records (as `JSON.stringify(jsonMany(…))`), or undefined when they cannot be kept. */
  jsonMany(r: Resource, rows: readonly Row[], view: View, fields: readonly Field[] = r.fields): string | undefined {
    if (!this.enabled) return undefined;
    const { plan, id } = this.planned(fields);
    if (!plan) return undefined;
    const part = this.part('j', r.element, '', id, plan, view);
    let out = '[';
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k];
      if (k) out += ',';
      out += this.text(part, plan, row, () => JSON.stringify(jsonOne(r, row, view, fields)));
    }
    return `${out}]`;
  }
}
