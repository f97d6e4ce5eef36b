// Output codec: records as Rails-2-style typed XML (contract §4.1, §4.2) and as JSON (§8.14),
// both driven by the registry's field lists. XML is written with escaped templates: see
// docs/decisions.md for the measurement against fast-xml-parser's XMLBuilder.

import { column, RESOURCES, type Field, type Resource, type WireRecord, type WireValue } from '../registry.ts';
import { flat } from './flat.ts';

/** Who is looking: decides the caller-dependent elements (§5.4). */
export interface View {
  readonly callerId: number;
  readonly firm: boolean;
  readonly admin: boolean;
  /** /me.xml: the caller's own record with its token. */
  readonly me?: boolean;
}

/** A record as the store returns it: snake_case keys, booleans as 0/1 or booleans. */
export type Row = Record<string, unknown>;

export const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';

// One scan finds what must be escaped and what XML cannot hold at all: C0 controls other than tab and
// newlines, U+FFFE/U+FFFF, and surrogates (a valid pair sends the string down the slow path, which keeps it).
// eslint-disable-next-line no-control-regex -- these control characters are what is looked for
const ESC_RE = /[&<>"\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
// eslint-disable-next-line no-control-regex -- as above
const ESC_ALL = /[&<>"\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// Any character outside ASCII, or one that must be escaped: a string without one is written as it is.
// eslint-disable-next-line no-control-regex -- as above
const PLAIN_RE = /[&<>"\r\u0000-\u0008\u000B\u000C\u000E-\u001F\u0080-\uFFFF]/;
const WIDE_RE = /[\u0080-\uFFFF]/;
const ESC_MAP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;' };
/**
 * Escape text or an attribute value. `\r` becomes a character reference so that it survives parsing.
 * A character XML 1.0 cannot hold (stored by an older version or through another client of the file)
 * becomes U+FFFD, so that every XML answer stays well-formed; JSON answers keep the stored value.
 */
export function esc(s: string): string {
  if (!ESC_RE.test(s)) return s;
  return s.replace(LONE_SURROGATE, '\uFFFD').replace(ESC_ALL, (c) => ESC_MAP[c] ?? '\uFFFD');
}

/**
 * The text of 0.00 … 99.99, each made once (D201): a page of 50 time entries spent 7 µs in-process turning
 * hours into text (a double's shortest form is costly), 0.5 µs from the table. A pure function's values:
 * the same whatever fills it first.
 */
const FLOATS = 10_000;
const FLOAT_TEXT: (string | undefined)[] = new Array<string | undefined>(FLOATS).fill(undefined);

/** Floats always carry a fractional part: 2 -> "2.0", 1.5 -> "1.5" (§4.2). */
export function formatFloat(n: number): string {
  const k = Math.round(n * 100);
  if (k >= 0 && k < FLOATS) {
    const s = FLOAT_TEXT[k];
    if (s !== undefined) return s;
  }
  const r = k / 100;
  const s = Number.isInteger(r) ? r.toFixed(1) : String(r);
  if (k >= 0 && k < FLOATS) FLOAT_TEXT[k] = s;
  return s;
}

const truthy = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';

/** Is a field shown for this record and viewer? undefined value = leave out. */
function shown(fl: Field, row: Row, view: View, value: unknown): boolean {
  switch (fl.show) {
    case undefined: return true;
    case 'firm': return view.firm;
    case 'admin': return view.admin;
    case 'adminOrSelf': return view.admin || row.id === view.callerId;
    case 'me': return view.me === true && row.id === view.callerId;
    case 'announcement': return view.admin || truthy(row.show_announcement);
    case 'firmRecord': return truthy(row.firm);
    case 'set': return value !== null && value !== undefined;
  }
}

interface Compiled {
  readonly f: Field;
  readonly col: string;
  readonly open: string;     // `<name type="t">`
  readonly close: string;    // `</name>`
  readonly nilEl: string;    // `<name type="t" nil="true"></name>`
  readonly json: string;     // json key
  readonly sub?: readonly Compiled[];
  readonly of?: Resource;
}
const cache = new WeakMap<readonly Field[], readonly Compiled[]>();
const TYPED = new Set(['integer', 'boolean', 'datetime', 'date', 'float']);

function compile(fields: readonly Field[]): readonly Compiled[] {
  let c = cache.get(fields);
  if (c) return c;
  c = fields.map((f) => {
    const t = TYPED.has(f.type) ? ` type="${f.type}"` : f.type === 'array' ? ' type="array"' : '';
    return {
      f, col: column(f.name), open: `<${f.name}${t}>`, close: `</${f.name}>`,
      nilEl: `<${f.name}${t} nil="true"></${f.name}>`, json: column(f.name),
      sub: f.type === 'nested' && f.fields ? compile(f.fields) : undefined,
      of: f.type === 'array' ? Object.values(RESOURCES).find((r) => r.element === f.of) : undefined,
    };
  });
  cache.set(fields, c);
  return c;
}

/** Scalar text of a value of a given type, or null for nil. */
function scalar(type: Field['type'], nil: boolean | undefined, v: unknown): string | null {
  if (v === null || v === undefined) {
    if (nil) return null;
    // Non-nil integers that are unset read 0 (post milestone-id, client-id); strings read "".
    if (type === 'integer') return '0';
    if (type === 'boolean' || type === 'untyped-boolean') return 'false';
    return '';
  }
  switch (type) {
    case 'boolean': case 'untyped-boolean': return truthy(v) ? 'true' : 'false';
    case 'float': return formatFloat(Number(v));
    case 'integer': return String(Math.trunc(Number(v)));
    default: return String(v);
  }
}

// Records are written by a function compiled once per field list and indentation from the registry
// (as Fastify's own JSON serializer compiles a schema): constant markup merged into few literals, the
// type of each field known in advance, so that only values are looked at per record. 50 todo items:
// 95-110 µs (a generic loop over the fields) -> 12-16 µs, and the string it builds has far fewer pieces,
// so computing its length and encoding it for the socket costs 20 µs instead of 65 (D120). Only names
// and constants of the registry go into the generated code, each as a JSON string literal; values are
// read from the row at run time and never become code.

type RecordWriter = (row: Row, view: View, st: TextState) => string;

/**
 * What a rendering learned of the text it wrote (D211): `wide` once a value held a character outside
 * ASCII. Every other part of an XML record (markup from the registry, numbers, booleans) is ASCII, so a
 * document rendered with `wide` still false is ASCII. (The thin path wrote such a document as Latin-1; it
 * is gone, D334: what is left of the flag sizes the kept record texts.)
 */
export interface TextState { wide: boolean }

/** Helpers the generated code calls (passed in, not globals). */
const H = {
  truthy, formatFloat,
  /** Text of a string-like value (string, date, datetime, unknown types): escaped when needed. */
  str(v: unknown, st: TextState): string {
    const t = typeof v === 'string' ? v : String(v);
    if (!PLAIN_RE.test(t)) return t;
    const out = ESC_RE.test(t) ? esc(t) : t;
    // Looked for in what is written: an ASCII control character is written as U+FFFD.
    if (!st.wide && WIDE_RE.test(out)) st.wide = true;
    return out;
  },
  int(v: unknown): string {
    return typeof v === 'number' && Number.isInteger(v) ? String(v) : String(Math.trunc(Number(v)));
  },
  /** Nested arrays of records (a todo list's todo-items). */
  records(el: string, fields: readonly Field[], rows: readonly Row[], view: View, indent: string, st: TextState): string {
    const { write } = recordWriter(el, fields, indent);
    let o = '';
    for (let k = 0; k < rows.length; k++) o += write(rows[k], view, st);
    return o;
  },
};

/** The JavaScript condition under which a field with `show` is written (`v` is its value). */
function showCondition(show: Field['show']): string {
  switch (show) {
    case undefined: return 'true';
    case 'firm': return 'view.firm';
    case 'admin': return 'view.admin';
    case 'adminOrSelf': return '(view.admin || row.id === view.callerId)';
    case 'me': return '(view.me === true && row.id === view.callerId)';
    case 'announcement': return '(view.admin || H.truthy(row.show_announcement))';
    case 'firmRecord': return 'H.truthy(row.firm)';
    case 'set': return '(v !== null && v !== undefined)';
  }
}

/** A piece of a record's text: constant markup, or JavaScript code of a value. */
type Term = { readonly c: string } | { readonly e: string };

/** One JavaScript expression concatenating the terms, neighbouring constants merged into one literal. */
function concat(terms: readonly Term[]): string {
  const parts: string[] = [];
  let lit = '';
  for (const t of terms) {
    if ('c' in t) { lit += t.c; continue; }
    if (lit) { parts.push(JSON.stringify(lit)); lit = ''; }
    parts.push(t.e);
  }
  if (lit) parts.push(JSON.stringify(lit));
  return parts.length ? `(${parts.join(' + ')})` : "''";
}

/**
 * The terms of the elements of `fields` at `indent`, reading columns `prefix + column`. A value is
 * read once into `v`; fields shown only sometimes become `(condition ? … : '')`, so the constant
 * markup of the others merges across fields: the string built has about two pieces per field.
 */
function fieldTerms(fields: readonly Field[], indent: string, prefix: string, nestedFields: (readonly Field[])[]): Term[] {
  const lit = JSON.stringify;
  const out: Term[] = [];
  for (const f of fields) {
    const col = prefix + column(f.name);
    const typed = TYPED.has(f.type) ? ` type="${f.type}"` : f.type === 'array' ? ' type="array"' : '';
    const read = `(v = row[${lit(col)}])`;
    if (f.type === 'nested') {
      // Nested records (a person's company, a post's category) read `<name>_<sub>` columns; only
      // `show: 'set'` applies to them (on `<name>_id`).
      const inner: Term[] = [{ c: `${indent}<${f.name}>\n` }, ...fieldTerms(f.fields ?? [], `${indent}  `, `${col}_`, nestedFields), { c: `${indent}</${f.name}>\n` }];
      if (f.show === 'set') out.push({ e: `(row[${lit(`${col}_id`)}] == null ? '' : ${concat(inner)})` });
      else out.push(...inner);
      continue;
    }
    let terms: Term[];
    let cond = showCondition(f.show);
    if (f.type === 'array') {
      const of = Object.values(RESOURCES).find((r) => r.element === f.of);
      nestedFields.push(of?.fields ?? []);
      terms = [{ c: `${indent}<${f.name}${typed}>\n` },
        { e: `H.records(${lit(of?.element ?? '')}, N[${nestedFields.length - 1}], row[${lit(col)}], view, ${lit(`${indent}  `)}, st)` },
        { c: `${indent}</${f.name}>\n` }];
      if (f.show === 'set') {
        cond = 'true';
        terms = [{ e: `(${read} == null ? '' : ${concat(terms)})` }];
      }
    } else {
      const value = f.type === 'integer' ? 'H.int(v)'
        : f.type === 'boolean' || f.type === 'untyped-boolean' ? "(H.truthy(v) ? 'true' : 'false')"
          : f.type === 'float' ? 'H.formatFloat(Number(v))'
            : 'H.str(v, st)';
      if (f.show === 'set') {
        // Left out when null: the condition reads the value itself.
        cond = 'true';
        terms = [{ e: `(${read} == null ? '' : ${concat([{ c: `${indent}<${f.name}${typed}>` }, { e: value }, { c: `</${f.name}>\n` }])})` }];
      } else if (f.nil) {
        terms = [{ c: `${indent}<${f.name}${typed}` },
          { e: `(${read} == null ? ${lit(` nil="true"></${f.name}>\n`)} : '>' + ${value} + ${lit(`</${f.name}>\n`)})` }];
      } else {
        const dflt = scalar(f.type, false, null) ?? '';
        terms = [{ c: `${indent}<${f.name}${typed}>` }, { e: `(${read} == null ? ${lit(dflt)} : ${value})` }, { c: `</${f.name}>\n` }];
      }
    }
    if (cond === 'true') out.push(...terms);
    else out.push({ e: `(${cond} ? ${concat(terms)} : '')` });
  }
  return out;
}

/**
 * A compiled record writer and what its code reads (D219): `write` renders a record; `reads` lists, in
 * order, every `row["…"]`, `row.x` and `view.x` the generated code holds, found in the code itself.
 * `keep` is false when the text may depend on more than those values: nested arrays of records (written
 * by another writer), or any other mention of `row` or `view` in the code (`readsMore`).
 */
interface Writer {
  readonly write: RecordWriter;
  readonly keep: boolean;
  /** Every value `write` reads is `===` to the one in `s` (made by `snap`). */
  readonly same: (row: Row, view: View, s: readonly unknown[]) => boolean;
  /** The values `write` reads, in `reads` order. */
  readonly snap: (row: Row, view: View) => unknown[];
  readonly reads: readonly string[];
}

const writers = new WeakMap<readonly Field[], Map<string, Writer>>();

/** `row["…"]`, `row.x` and `view.x` in generated code, as JavaScript accessors (`row["id"]`, `view.firm`). */
const READ_RE = /\b(?:row\[("(?:[^"\\]|\\.)*")\]|row\.([A-Za-z_$][\w$]*)|view\.([A-Za-z_$][\w$]*))/g;

/** The accessors the generated code reads, each once, in a fixed order: `row["id"]` first. */
function readsOf(code: string): string[] {
  const out = new Set<string>(['row["id"]']);
  for (const m of code.matchAll(READ_RE)) {
    if (m[1] !== undefined) out.add(`row[${JSON.stringify(JSON.parse(m[1]) as string)}]`);
    else if (m[2] !== undefined) out.add(`row[${JSON.stringify(m[2])}]`);
    else out.add(`view.${m[3]}`);
  }
  return [...out];
}

/**
 * Whether the code reads the row or the view in another way than READ_RE finds (`row[k]`, `row?.x`, the whole
 * row given to a helper, as `H.records` is given the view): its text is then never kept. String literals go
 * first: a name in markup is not a read.
 */
function readsMore(code: string): boolean {
  return /\b(?:row|view)\b/.test(code.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(READ_RE, ''));
}

/** The compiled writer of one record element with these fields at this indentation. */
function recordWriter(el: string, fields: readonly Field[], indent: string): Writer {
  let byIndent = writers.get(fields);
  if (!byIndent) writers.set(fields, byIndent = new Map());
  const key = `${el}\u0000${indent}`;
  let w = byIndent.get(key);
  if (!w) {
    const nested: (readonly Field[])[] = [];
    const text = concat([{ c: `${indent}<${el}>\n` }, ...fieldTerms(fields, `${indent}  `, '', nested), { c: `${indent}</${el}>\n` }]);
    // Its markup must be ASCII (D211: a document whose values were all ASCII is sent as Latin-1). The code
    // holds only the registry's names and constants, never a value: checked once per writer.
    if (WIDE_RE.test(text)) throw new Error(`XML markup of <${el}> is not ASCII`);
    const write = new Function('H', 'N', `return function writeRecord(row, view, st) { let v; return ${text}; };`)(H, nested) as RecordWriter;
    const reads = readsOf(text);
    w = {
      write, reads, keep: nested.length === 0 && !readsMore(text),
      same: new Function(`return function same(row, view, s) { return ${reads.map((r, i) => `${r} === s[${i}]`).join(' && ')}; };`)() as Writer['same'],
      snap: new Function(`return function snap(row, view) { return [${reads.join(', ')}]; };`)() as Writer['snap'],
    };
    byIndent.set(key, w);
  }
  return w;
}

interface Kept {
  /** The values the text was written from (primitives only). */
  readonly s: readonly unknown[];
  readonly text: string;
  readonly wide: boolean;
  readonly size: number;
}
/** An id a kept text can be found by again: a primitive (an object is equal only to itself). */
const keyable = (id: unknown): boolean => id !== null && id !== undefined && typeof id !== 'object' && typeof id !== 'function';
/** A record read alone once: its text is kept at the next reading (RecordTexts.writeOne). */
const SEEN: Kept = Object.freeze({ s: Object.freeze([]), text: '', wide: false, size: 48 });

/**
 * The XML text of records, kept between answers (D219). A record's text is a function of the values its
 * writer reads (the row's columns that it writes and the viewer's flags), and nothing else: a kept text
 * is used again when every one of them is `===` to the value it was written from, which holds for any
 * row from anywhere (a row read in another request's write, an enriched or redacted row), so it needs no
 * tie to the store's versions. Only texts written from primitive values are kept: an object could change
 * and stay `===`. Kept per writer by the record's id; a record whose values changed is written again and
 * replaces its old text. Bounded by bytes (about: the text, 8 a value, 96 an entry): when the bound is
 * reached, the oldest-written half of the texts of the writer holding the most go; a text over 1/16 of
 * the bound is not kept.
 */
export class RecordTexts {
  private readonly byWriter = new Map<Writer, Map<unknown, Kept>>();
  private bytes = 0;
  /** Texts used again (tests check that the path was taken). */
  hits = 0;

  readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get enabled(): boolean { return this.maxBytes > 0; }

  get size(): { entries: number; bytes: number } {
    let entries = 0;
    for (const m of this.byWriter.values()) entries += m.size;
    return { entries, bytes: this.bytes };
  }

  /** The records' text, each kept one used when its values are the same. */
  write(w: Writer, rows: readonly Row[], view: View, st: TextState): string {
    let m = this.byWriter.get(w);
    if (!m) this.byWriter.set(w, m = new Map());
    let out = '';
    for (let k = 0; k < rows.length; k++) {
      const row = rows[k];
      const id = row.id;
      const e = m.get(id);
      if (e !== undefined && e !== SEEN && w.same(row, view, e.s)) {
        this.hits++;
        if (e.wide) st.wide = true;
        out += e.text;
        continue;
      }
      const own: TextState = { wide: false };
      const text = w.write(row, view, own);
      if (own.wide) st.wide = true;
      out += text;
      if (keyable(id)) this.keep(m, id, w.snap(row, view), text, own.wide);
    }
    return out;
  }

  /**
   * One record's text (a record read alone, D223): kept from its second reading on, not its first (as the
   * response cache admits, D131). Records read once, as most of a team's random reads are, cost a mark
   * instead of a snapshot, a flattened text and their memory.
   */
  writeOne(w: Writer, row: Row, view: View, st: TextState): string {
    let m = this.byWriter.get(w);
    const id = row.id;
    if (m?.get(id) === undefined && keyable(id)) {
      if (!m) this.byWriter.set(w, m = new Map());
      this.mark(m, id);
      return w.write(row, view, st);
    }
    return this.write(w, [row], view, st);
  }

  private mark(m: Map<unknown, Kept>, id: unknown): void {
    if (SEEN.size > this.maxBytes / 16) return; // as keep(): a bound this small keeps nothing (and evicting could not make room)
    while (this.bytes + SEEN.size > this.maxBytes) this.evict();
    m.set(id, SEEN);
    this.bytes += SEEN.size;
  }

  private keep(m: Map<unknown, Kept>, id: unknown, s: unknown[], text: string, wide: boolean): void {
    for (const v of s) if (v !== null && (typeof v === 'object' || typeof v === 'function')) return;
    const old = m.get(id);
    if (old) { m.delete(id); this.bytes -= old.size; }
    const size = 96 + 8 * s.length + text.length * (wide ? 2 : 1);
    if (size > this.maxBytes / 16) return;
    while (this.bytes + size > this.maxBytes) this.evict();
    // Flat once (D225): a rope of a record's pieces would be walked again at every use.
    m.set(id, { s, text: flat(text), wide, size });
    this.bytes += size;
  }

  /** The oldest half of the texts of the writer that holds the most. */
  private evict(): void {
    let from: Map<unknown, Kept> | undefined;
    for (const m of this.byWriter.values()) if (!from || m.size > from.size) from = m;
    if (!from || from.size === 0) { this.bytes = 0; return; }
    let drop = Math.max(1, from.size >> 1);
    for (const [id, e] of from) {
      if (drop-- <= 0) break;
      from.delete(id);
      this.bytes -= e.size;
    }
  }
}

/**
 * A whole XML document holding one record (`st.wide` set when a value is not ASCII). With `texts`, a record
 * whose values are those of its kept text is not written again (D219, D223).
 */
export function xmlOne(r: Resource, row: Row, view: View, fields: readonly Field[] = r.fields, element?: string, st: TextState = { wide: false }, texts?: RecordTexts): string {
  const w = recordWriter(element ?? r.element, fields, '');
  return XML_DECL + (texts?.enabled && w.keep ? texts.writeOne(w, row, view, st) : w.write(row, view, st));
}

/**
 * A whole XML document holding a collection (`type="array"` root, optional extra attributes). With
 * `texts`, records whose values are those of a kept text are not written again (D219).
 */
export function xmlMany(
  r: Resource, rows: readonly Row[], view: View,
  opts: { fields?: readonly Field[]; root?: string; element?: string; attrs?: Record<string, string | number> } = {},
  st: TextState = { wide: false },
  texts?: RecordTexts,
): string {
  const root = opts.root ?? r.collection;
  let attrs = '';
  for (const [k, v] of Object.entries(opts.attrs ?? {})) attrs += ` ${k}="${H.str(v, st)}"`;
  if (WIDE_RE.test(root) || WIDE_RE.test(attrs)) st.wide = true; // attribute names and the root are markup: ASCII today
  let out = `${XML_DECL}<${root}${attrs} type="array">\n`;
  const w = recordWriter(opts.element ?? r.element, opts.fields ?? r.fields, '  ');
  if (texts?.enabled && w.keep) out += texts.write(w, rows, view, st);
  else for (let k = 0; k < rows.length; k++) out += w.write(rows[k], view, st);
  return `${out}</${root}>\n`;
}

/** A plain element holding typed scalars (count.xml, templates): [name, type, value|null]. */
export function xmlPlain(root: string, entries: readonly (readonly [string, Field['type'], unknown])[]): string {
  const out: string[] = [XML_DECL, `<${root}>\n`];
  for (const [name, type, v] of entries) {
    const t = TYPED.has(type) ? ` type="${type}"` : '';
    if (v === null || v === undefined) out.push(`  <${name}${t} nil="true"></${name}>\n`);
    else out.push(`  <${name}${t}>${esc(scalar(type, false, v)!)}</${name}>\n`);
  }
  out.push(`</${root}>\n`);
  return out.join('');
}

export function xmlErrors(messages: readonly string[]): string {
  return `${XML_DECL}<errors>\n${messages.map((m) => `  <error>${esc(m)}</error>\n`).join('')}</errors>\n`;
}

// ---- JSON (§8.14) -------------------------------------------------------------------------

function jsonValue(type: Field['type'], nil: boolean | undefined, v: unknown): WireValue {
  const s = scalar(type, nil, v);
  if (s === null) return null;
  switch (type) {
    case 'integer': return Number(s);
    case 'float': return Math.round(Number(v ?? 0) * 100) / 100;
    case 'boolean': case 'untyped-boolean': return s === 'true';
    default: return s;
  }
}

function jsonFields(cs: readonly Compiled[], row: Row, view: View): WireRecord {
  const o: WireRecord = {};
  for (const c of cs) {
    const f = c.f;
    if (f.type === 'nested') {
      const idv = row[`${c.col}_id`];
      if (f.show === 'set' && (idv === null || idv === undefined)) continue;
      const inner: Row = {};
      for (const s of c.sub!) inner[s.col] = row[`${c.col}_${s.col}`];
      o[c.json] = jsonFields(c.sub!, inner, view);
      continue;
    }
    const v = row[c.col];
    if (!shown(f, row, view, v)) continue;
    if (f.type === 'array') {
      o[c.json] = (v as Row[]).map((it) => jsonFields(compile(c.of!.fields), it, view));
      continue;
    }
    o[c.json] = jsonValue(f.type, f.nil, v);
  }
  return o;
}

export function jsonOne(r: Resource, row: Row, view: View, fields: readonly Field[] = r.fields): WireRecord {
  return jsonFields(compile(fields), row, view);
}

export function jsonMany(r: Resource, rows: readonly Row[], view: View, fields: readonly Field[] = r.fields): WireRecord[] {
  const cs = compile(fields);
  return rows.map((row) => jsonFields(cs, row, view));
}

export function jsonPlain(entries: readonly (readonly [string, Field['type'], unknown])[]): WireRecord {
  const o: WireRecord = {};
  for (const [name, type, v] of entries) o[column(name)] = jsonValue(type, true, v);
  return o;
}
