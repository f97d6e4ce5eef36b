// The compiled record writers of shared/codec/out.ts (D120) against the generic field loop they
// replaced, kept here as the reference: for every resource, every kind of viewer and rows of random
// values (nulls, odd types, characters to escape and characters XML cannot hold), both must write the
// very same document.

import { describe, expect, it } from 'vitest';
import { column, postSummaryFields, RESOURCES, type Field, type Resource } from '../../../shared/registry.ts';
import { esc, formatFloat, RecordTexts, xmlMany, xmlOne, XML_DECL, type Row, type TextState, type View } from '../../../shared/codec/out.ts';
import { rng, type Rng } from '../../../shared/sync/rng.ts';

const NON_ASCII = /[^\u0000-\u007F]/; // eslint-disable-line no-control-regex -- every character outside ASCII

// ---- the reference: the generic writer as it was before D120 ------------------------------------
// eslint-disable-next-line no-control-regex -- as in out.ts
const ESC_RE = /[&<>"\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const TYPED = new Set(['integer', 'boolean', 'datetime', 'date', 'float']);
const truthy = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';
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
function nullText(type: Field['type']): string {
  if (type === 'integer') return '0';
  if (type === 'boolean' || type === 'untyped-boolean') return 'false';
  return '';
}
function text(type: Field['type'], v: unknown): string {
  switch (type) {
    case 'string': case 'date': case 'datetime': return typeof v === 'string' ? v : String(v);
    case 'integer': return typeof v === 'number' && Number.isInteger(v) ? String(v) : String(Math.trunc(Number(v)));
    case 'boolean': case 'untyped-boolean': return truthy(v) ? 'true' : 'false';
    case 'float': return formatFloat(Number(v));
    default: return String(v);
  }
}
function refFields(fields: readonly Field[], row: Row, view: View, indent: string): string {
  let out = '';
  for (const f of fields) {
    const col = column(f.name);
    const t0 = TYPED.has(f.type) ? ` type="${f.type}"` : f.type === 'array' ? ' type="array"' : '';
    const open = `<${f.name}${t0}>`, close = `</${f.name}>`;
    if (f.type === 'nested') {
      const idv = row[`${col}_id`];
      if (f.show === 'set' && (idv === null || idv === undefined)) continue;
      const inner: Row = {};
      for (const sub of f.fields!) inner[column(sub.name)] = row[`${col}_${column(sub.name)}`];
      out += `${indent}<${f.name}>\n${refFields(f.fields!, inner, view, `${indent}  `)}${indent}</${f.name}>\n`;
      continue;
    }
    const v = row[col];
    if (f.show !== undefined && !shown(f, row, view, v)) continue;
    if (f.type === 'array') {
      const of = Object.values(RESOURCES).find((r) => r.element === f.of)!;
      out += `${indent}${open}\n`;
      for (const it of v as Row[]) out += refRecord(of.element, of.fields, it, view, `${indent}  `);
      out += `${indent}${close}\n`;
      continue;
    }
    if (v === null || v === undefined) {
      out += f.nil ? `${indent}<${f.name}${t0} nil="true"></${f.name}>\n` : `${indent}${open}${nullText(f.type)}${close}\n`;
      continue;
    }
    const t = text(f.type, v);
    out += `${indent}${open}${ESC_RE.test(t) ? esc(t) : t}${close}\n`;
  }
  return out;
}
function refRecord(el: string, fields: readonly Field[], row: Row, view: View, indent: string): string {
  return `${indent}<${el}>\n${refFields(fields, row, view, `${indent}  `)}${indent}</${el}>\n`;
}

// ---- random rows ----------------------------------------------------------------------------------
const STRINGS = ['', 'plain', 'A & B <c> "q"', 'line\r\nbreak', 'nul\u0000here', 'bell\u0007', '\uD800lone', 'pair \u{1F600}', 'é ü', '\uFFFE', '  spaced  '];
/** The strings of STRINGS a document can hold as ASCII (no character outside it, none written as U+FFFD). */
const ASCII_STRINGS = STRINGS.filter((t) => !/[^\t\n\r\u0020-\u007E]/.test(t));
/** `ascii`: strings of ASCII_STRINGS only (a third of the documents), so that `wide` staying false is checked too (D211). */
function value(g: Rng, f: Field, ascii: boolean): unknown {
  const k = g.int(10);
  if (k === 0) return null;
  if (k === 1) return undefined;
  switch (f.type) {
    case 'integer': return g.pick([0, 1, 42, -3, 2 ** 40, '17', '4.9', 1.5, 'x']);
    case 'float': return g.pick([0, 2, 1.5, 1.005, '3.25', -0.5, 12345.678]);
    case 'boolean': case 'untyped-boolean': return g.pick([0, 1, true, false, '1', 'true', 'no']);
    case 'date': return g.pick(['2024-03-04', '', 'bad<date']);
    case 'datetime': return g.pick(['2024-03-04T05:06:07Z', 'x&y']);
    default: return g.pick([...(ascii ? ASCII_STRINGS : STRINGS), 7]);
  }
}
function randomRow(g: Rng, r: Resource, depth = 0, ascii = false): Row {
  const row: Row = {};
  for (const f of r.fields) {
    const col = column(f.name);
    if (f.type === 'nested') {
      row[`${col}_id`] = g.int(3) === 0 ? null : g.int(50);
      for (const sub of f.fields ?? []) row[`${col}_${column(sub.name)}`] = value(g, sub, ascii);
      continue;
    }
    if (f.type === 'array') {
      const of = Object.values(RESOURCES).find((x) => x.element === f.of)!;
      row[col] = depth > 0 ? [] : Array.from({ length: g.int(3) }, () => randomRow(g, of, depth + 1, ascii));
      continue;
    }
    row[col] = value(g, f, ascii);
  }
  row.id = g.pick([1, 2, 3, null]);
  row.show_announcement = g.pick([0, 1]);
  row.firm = g.pick([0, 1, true]);
  return row;
}

const VIEWS: View[] = [
  { callerId: 1, firm: true, admin: true },
  { callerId: 2, firm: true, admin: false },
  { callerId: 3, firm: false, admin: false },
  { callerId: 1, firm: true, admin: true, me: true },
  { callerId: 2, firm: false, admin: false, me: true },
];

describe('compiled XML record writers (D120)', () => {
  for (const r of Object.values(RESOURCES)) {
    it(`write ${r.element} exactly as the generic writer, for every viewer and random rows`, () => {
      const g = rng(r.element.length * 7919 + 1);
      let narrow = 0;
      for (let k = 0; k < 300; k++) {
        const rows = Array.from({ length: 1 + g.int(3) }, () => randomRow(g, r, 0, k % 3 === 0));
        const view = g.pick(VIEWS);
        expect(xmlOne(r, rows[0], view)).toBe(XML_DECL + refRecord(r.element, r.fields, rows[0], view, ''));
        // What the rendering reports of its text (D211): `wide` exactly when the document is not ASCII.
        const st1: TextState = { wide: false }, stMany: TextState = { wide: false };
        expect(NON_ASCII.test(xmlOne(r, rows[0], view, r.fields, undefined, st1))).toBe(st1.wide);
        expect(NON_ASCII.test(xmlMany(r, rows, view, {}, stMany))).toBe(stMany.wide);
        narrow += stMany.wide ? 0 : 1;
        const many = xmlMany(r, rows, view);
        expect(many).toBe(`${XML_DECL}<${r.collection} type="array">\n${rows.map((row) => refRecord(r.element, r.fields, row, view, '  ')).join('')}</${r.collection}>\n`);
      }
      expect(narrow, 'ASCII documents among the 300').toBeGreaterThanOrEqual(50);
    });
  }

  it('keeps field subsets and element overrides apart (one writer per field list, element and indentation)', () => {
    const r = RESOURCES.person;
    const subset = r.fields.filter((f) => ['id', 'first-name'].includes(f.name));
    const row = { id: 5, first_name: 'Ada', last_name: 'Admin' };
    const view = VIEWS[0];
    expect(xmlOne(r, row, view, subset, 'who')).toBe(`${XML_DECL}<who>\n  <first-name>Ada</first-name>\n  <id type="integer">5</id>\n</who>\n`);
    expect(xmlOne(r, row, view, subset)).toBe(XML_DECL + refRecord('person', subset, row, view, ''));
    expect(xmlMany(r, [row], view, { fields: subset })).toContain('  <person>\n    <first-name>Ada</first-name>');
  });

  it('reports a value outside ASCII in a collection\'s attributes and nested records (D211)', () => {
    const st: TextState = { wide: false };
    xmlMany(RESOURCES.comment, [], VIEWS[0], { attrs: { count: 'é' } }, st);
    expect(st.wide).toBe(true);
    const ctl: TextState = { wide: false }; // an ASCII control character is written as U+FFFD
    expect(xmlOne(RESOURCES.comment, { id: 1, body: 'nul\u0000' }, VIEWS[0], RESOURCES.comment.fields, undefined, ctl)).toContain('nul\uFFFD');
    expect(ctl.wide).toBe(true);
    const list = { id: 1, name: 'plain', todo_items: [{ id: 2, content: 'plain' }, { id: 3, content: 'Zoë' }] };
    const a: TextState = { wide: false }, b: TextState = { wide: false };
    xmlOne(RESOURCES.todoList, { ...list, todo_items: list.todo_items.slice(0, 1) }, VIEWS[0], RESOURCES.todoList.fields, undefined, a);
    xmlOne(RESOURCES.todoList, list, VIEWS[0], RESOURCES.todoList.fields, undefined, b);
    expect([a.wide, b.wide]).toEqual([false, true]);
  });

  it('refuses markup outside ASCII (an element name), which `wide` would not see (D211)', () => {
    expect(() => xmlOne(RESOURCES.person, { id: 1 }, VIEWS[0], RESOURCES.person.fields, 'persönlich')).toThrow(/not ASCII/);
    const st: TextState = { wide: false };
    xmlMany(RESOURCES.person, [], VIEWS[0], { root: 'leute-ü' }, st);
    expect(st.wide).toBe(true);
  });

  it('never turns a value into code', () => {
    const hostile = "'); throw new Error('x'); ('";
    const x = xmlOne(RESOURCES.timeEntry, { id: 1, description: hostile, person_name: '${process}' }, VIEWS[0]);
    expect(x).toContain(`<description>${hostile.replace(/"/g, '&quot;')}</description>`);
    expect(x).toContain('<person-name>${process}</person-name>');
  });
});

// Kept record texts (D219): a list written with a RecordTexts must be the very document written without
// it, whatever changed between two writings of a record with the same id (a value, the viewer, a value
// that is an object), and the kept texts must be used, and stay within their bound.
describe('kept record texts of lists and single records (D219, D223)', () => {
  /** A row like `row` with one to three of its values (or id-like columns the conditions read) changed. */
  function changed(g: Rng, r: Resource, row: Row, ascii: boolean): Row {
    const out: Row = { ...row };
    for (let n = 1 + g.int(3); n > 0; n--) {
      const f = g.pick(r.fields);
      if (f.type === 'nested') out[`${column(f.name)}_${column(g.pick(f.fields ?? [f]).name)}`] = g.pick(['x', 'y & z', null, 3]);
      else if (f.type !== 'array') out[column(f.name)] = value(g, f, ascii);
      if (g.int(4) === 0) out.show_announcement = g.pick([0, 1]);
      if (g.int(4) === 0) out.firm = g.pick([0, 1]);
    }
    return out;
  }

  // Every resource's own fields, and the other field lists the routes render with (a post's summary form, the
  // legacy categories without `type`); several seeds, so that a read left out of `same` shows whichever it is.
  const cases = [
    ...Object.values(RESOURCES).map((r) => ({ name: r.collection, r, fields: r.fields })),
    { name: 'post summaries', r: RESOURCES.post, fields: postSummaryFields },
    { name: 'legacy categories', r: RESOURCES.category, fields: RESOURCES.category.fields.filter((f) => f.name !== 'type') },
  ];
  for (const { name, r, fields } of cases) {
    it(`write ${name} with kept texts exactly as without, as records change between answers`, () => {
      let hits = 0, oneHits = 0;
      for (let seed = 1; seed <= 6; seed++) {
        const g = rng(r.element.length * 104_729 + fields.length * 31 + seed);
        const texts = new RecordTexts(1 << 20);
        let pool: Row[] = Array.from({ length: 6 }, () => randomRow(g, r, 0, g.int(2) === 0));
        const strings = fields.filter((f) => f.type === 'string');
        const box = { n: 0, toString(): string { return `object ${this.n}`; } };
        for (let k = 0; k < 200; k++) {
          // Some records change (same id, other values), the others are given again as new copies.
          pool = pool.map((row) => (g.int(4) === 0 ? changed(g, r, row, k % 3 === 0) : { ...row }));
          // A value that is an object, the same object each time, whose text changes.
          box.n = k;
          if (g.int(10) === 0 && strings.length) pool[g.int(pool.length)][column(g.pick(strings).name)] = box;
          const rows = Array.from({ length: 1 + g.int(5) }, () => g.pick(pool));
          const view = g.pick(VIEWS);
          const kept: TextState = { wide: false }, plain: TextState = { wide: false };
          const a = xmlMany(r, rows, view, { fields }, kept, texts);
          const b = xmlMany(r, rows, view, { fields }, plain);
          expect(a).toBe(b);
          expect(a).toBe(`${XML_DECL}<${r.collection} type="array">\n${rows.map((row) => refRecord(r.element, fields, row, view, '  ')).join('')}</${r.collection}>\n`);
          expect(kept.wide).toBe(plain.wide);
          // One record alone (D223): its own writer (no indentation), its own kept texts.
          const one = g.pick(rows), keptOne: TextState = { wide: false }, plainOne: TextState = { wide: false };
          const before = texts.hits;
          const c = xmlOne(r, one, view, fields, undefined, keptOne, texts);
          oneHits += texts.hits - before;
          expect(c).toBe(xmlOne(r, one, view, fields, undefined, plainOne));
          expect(c).toBe(XML_DECL + refRecord(r.element, fields, one, view, ''));
          expect(keptOne.wide).toBe(plainOne.wide);
        }
        hits += texts.hits;
      }
      // Records holding nested records (a todo list's items) are always written.
      if (fields.some((f) => f.type === 'array')) expect(hits).toBe(0);
      else expect(hits).toBeGreaterThan(300);
      if (!fields.some((f) => f.type === 'array')) expect(oneHits).toBeGreaterThan(10);
    });
  }

  it('writes a record again when the viewer differs in what its writer reads', () => {
    const texts = new RecordTexts(1 << 20);
    const row = { id: 7, first_name: 'Ada', last_name: 'Admin', administrator: 1, user_name: 'ada', token: 't0k' };
    const admin = xmlMany(RESOURCES.person, [row], VIEWS[0], {}, undefined, texts);
    const other = xmlMany(RESOURCES.person, [{ ...row }], VIEWS[2], {}, undefined, texts);
    expect(admin).toContain('<user-name>ada</user-name>');
    expect(other).not.toContain('user-name');
    expect(xmlMany(RESOURCES.person, [{ ...row }], VIEWS[0], {}, undefined, texts)).toBe(admin);
  });

  it('stays within its bound, keeping the newest texts', () => {
    const texts = new RecordTexts(64 * 1024);
    const r = RESOURCES.todoItem;
    for (let id = 1; id <= 2000; id++) xmlMany(r, [{ id, content: `item ${id} `.repeat(10), todo_list_id: 1 }], VIEWS[0], {}, undefined, texts);
    expect(texts.size.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(texts.size.entries).toBeGreaterThan(20);
    const hits = texts.hits;
    xmlMany(r, [{ id: 2000, content: 'item 2000 '.repeat(10), todo_list_id: 1 }], VIEWS[0], {}, undefined, texts);
    expect(texts.hits).toBe(hits + 1);
    xmlMany(r, [{ id: 1, content: 'item 1 '.repeat(10), todo_list_id: 1 }], VIEWS[0], {}, undefined, texts);
    expect(texts.hits).toBe(hits + 1); // the oldest went
  });

  it('keeps a single record\'s text from its second reading on (D223)', () => {
    const texts = new RecordTexts(1 << 20);
    const r = RESOURCES.post;
    const row = { id: 7, title: 'Once', body: 'b & <c>', project_id: 1, author_id: 2, author_name: 'Ann' };
    const first = xmlOne(r, row, VIEWS[0], r.fields, undefined, undefined, texts);
    expect(texts.size).toEqual({ entries: 1, bytes: 48 }); // a mark, not a text
    expect(xmlOne(r, { ...row }, VIEWS[0], r.fields, undefined, undefined, texts)).toBe(first);
    expect(texts.hits).toBe(0);
    expect(texts.size.bytes).toBeGreaterThan(first.length - XML_DECL.length);
    expect(xmlOne(r, { ...row }, VIEWS[0], r.fields, undefined, undefined, texts)).toBe(first);
    expect(texts.hits).toBe(1);
    // Marks count against the bound like texts.
    const small = new RecordTexts(4096);
    for (let id = 1; id <= 1000; id++) xmlOne(r, { ...row, id }, VIEWS[0], r.fields, undefined, undefined, small);
    expect(small.size.bytes).toBeLessThanOrEqual(4096);
    expect(small.size.bytes).toBe(small.size.entries * 48);
    // A bound too small for one mark keeps nothing, and answers.
    const tiny = new RecordTexts(32);
    for (let id = 1; id <= 3; id++) expect(xmlOne(r, { ...row, id: 7 }, VIEWS[0], r.fields, undefined, undefined, tiny)).toBe(first);
    xmlOne(r, { ...row, id: 8 }, VIEWS[0], r.fields, undefined, undefined, tiny);
    expect(tiny.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('keeps nothing when off (0 bytes)', () => {
    const texts = new RecordTexts(0);
    const row = { id: 1, content: 'x' };
    xmlMany(RESOURCES.todoItem, [row], VIEWS[0], {}, undefined, texts);
    xmlMany(RESOURCES.todoItem, [row], VIEWS[0], {}, undefined, texts);
    expect(texts.size.entries).toBe(0);
    expect(texts.hits).toBe(0);
  });
});
