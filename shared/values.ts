// Value forms of requests (contract §2.3, §2.6) and the field validation driven by the
// registry (§2.5 partial updates, §4.4 one error per problem). Pure functions: the UI uses
// the same parsers to check a form before it sends it.

import { column, writableFields, type Field, type Resource } from './registry.ts';
import { fieldNode, type XNode } from './codec/in.ts';
import { parseHours } from './hours.ts';

/** Hours (§2.6): the one grammar, shared with the timesheet cells (shared/hours.ts, D90). */
export { parseHours };

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (message: string): Parsed<never> => ({ ok: false, message });

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function realDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1 || y < 1) return false;
  const dim = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= dim;
}

/** `YYYY-MM-DD` or `YYYYMMDD` (query form: nothing after it). Returns `YYYY-MM-DD` or null. */
export function parseQueryDate(s: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s) ?? /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return realDate(y, mo, d) ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** Body date: a date form optionally followed by `T` or a space and anything (§2.6). */
export function parseDate(s: string): Parsed<string> {
  const t = s.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/s.exec(t) ?? /^(\d{4})(\d{2})(\d{2})(?:[T ].*)?$/s.exec(t);
  if (!m) return bad('is not a valid date');
  return realDate(Number(m[1]), Number(m[2]), Number(m[3])) ? ok(`${m[1]}-${m[2]}-${m[3]}`) : bad('is not a valid date');
}

/** Datetime: ISO with Z or offset, `YYYY-MM-DD HH:MM:SS` (UTC), or a date (midnight UTC). */
export function parseDateTime(s: string): Parsed<string> {
  const t = s.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(t);
  if (m) {
    const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
    if (!realDate(y, mo, d) || h > 23 || mi > 59 || se > 59) return bad('is not a valid datetime');
    let ms = Date.UTC(y, mo - 1, d, h, mi, se);
    const tz = m[7];
    if (tz && tz !== 'Z') {
      const sign = tz[0] === '-' ? -1 : 1;
      const digits = tz.slice(1).replace(':', '');
      const oh = Number(digits.slice(0, 2)), om = Number(digits.slice(2));
      if (oh > 23 || om > 59) return bad('is not a valid datetime');
      ms -= sign * (oh * 60 + om) * 60000;
    }
    return ok(isoSeconds(new Date(ms)));
  }
  const d = parseDate(t);
  return d.ok ? ok(`${d.value}T00:00:00Z`) : bad('is not a valid datetime');
}

export const isoSeconds = (d: Date): string =>
  `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}Z`;

export function parseBoolean(s: string): Parsed<boolean> {
  const t = s.trim().toLowerCase();
  if (t === 'true' || t === '1') return ok(true);
  if (t === 'false' || t === '0' || t === '') return ok(false);
  return bad('is not a boolean');
}

export function parseInteger(s: string): Parsed<number> {
  const t = s.trim();
  if (!/^\d+$/.test(t) || t.length > 15) return bad('is not a number');
  return ok(Number(t));
}

export type Party = { type: 'Person' | 'Company'; id: number } | null;
/** Responsible party: `4` (person), `c12` (company), empty (nobody). */
export function parseParty(s: string): Parsed<Party> {
  const t = s.trim();
  if (t === '') return ok(null);
  if (/^\d{1,15}$/.test(t)) return Number(t) === 0 ? ok(null) : ok({ type: 'Person', id: Number(t) });
  const m = /^c(\d{1,15})$/.exec(t);
  if (m) return ok({ type: 'Company', id: Number(m[1]) });
  return bad('is invalid');
}

/** `Category` from `category-id`, `Responsible party` from `responsible-party` (Rails humanize). */
export function humanize(name: string): string {
  const s = name.replace(/-id$/, '').replace(/-/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

const codePoints = (s: string) => { let n = 0; for (const _ of s) n++; return n; };

/** A validated input value: stored form (booleans as booleans, references as ids or null). */
export type InputValue = string | number | boolean | null | Party;

export interface Validated {
  /** Present fields, keyed by field name. */
  readonly values: Map<string, InputValue>;
  readonly errors: string[];
}

/**
 * A field element with child elements where a value belongs (`<title><b>x</b></title>`, a JSON object
 * or array): it holds no value, and every kind of field answers it "is invalid".
 */
export interface Nested { readonly nested: true }
export const NESTED: Nested = Object.freeze({ nested: true as const });

/**
 * An input as a caller gave it (issue #30, D323): each field its typed value (a JS caller, sync, the CLI),
 * its text (an XML or form body), null (nil), or NESTED. The service checks every field through the
 * registry whatever it holds (`validateInput`): the typed client, IPC and sync are input too, and
 * one check gives one set of messages. Absent (undefined) = not sent.
 */
export type Given<T> = { readonly [K in keyof T]?: T[K] | string | null | Nested };

/** The input key of a field: its input element name with `_` (`responsible_party`, `notify`). */
export const inputKey = (f: Field): string => (f.input ?? f.name).replace(/-/g, '_');

/** The value of one field from its text (nil = ''), or an error message. */
function readText(f: Field, text: string): Parsed<InputValue> {
  const empty = text.trim() === '';
  switch (f.inputKind ?? 'string') {
    case 'string':
      if (f.required && empty) return bad("can't be blank");
      if (f.max !== undefined && codePoints(text) > f.max) return bad(`is too long (maximum is ${f.max} characters)`);
      // A present but empty value is the field's empty value: nil where the field may be nil (§2.5).
      return ok(f.nil && text === '' ? null : text);
    case 'enum': {
      const t = text.trim();
      if (t === '') return f.required ? bad("can't be blank") : bad('is not included in the list');
      const v = f.aliases?.[t] ?? t;
      return f.values?.includes(v) ? ok(v) : bad('is not included in the list');
    }
    case 'boolean': return parseBoolean(text);
    case 'integer': return empty ? (f.required ? bad("can't be blank") : ok(null)) : parseInteger(text);
    case 'reference': {
      if (empty) return f.required ? bad("can't be blank") : ok(null);
      const n = parseInteger(text);
      if (!n.ok) return bad('is invalid');
      return ok(n.value === 0 ? null : n.value);
    }
    case 'party': return parseParty(text);
    case 'date': return empty ? (f.required ? bad("can't be blank") : ok(null)) : parseDate(text);
    case 'datetime': return empty ? (f.required ? bad("can't be blank") : ok(null)) : parseDateTime(text);
    case 'hours': return empty ? bad("can't be blank") : parseHours(text);
  }
}

/**
 * The text of a given value as a body would carry it: a JSON body's scalars become element text the
 * same way (shared/codec/in.ts), so a typed caller and a JSON body get the same answers. NESTED, an
 * object or an array: no text (undefined).
 */
export function givenText(v: unknown): string | undefined {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return String(v);
  return undefined;
}

/** The value of one given field (`Given`), or an error message. */
export function readGiven(f: Field, v: unknown): Parsed<InputValue> {
  const text = givenText(v);
  return text === undefined ? bad('is invalid') : readText(f, text);
}

/** The value of one field element, or an error message. */
export function readValue(f: Field, node: XNode): Parsed<InputValue> {
  return readGiven(f, nodeValue(node));
}

/** What an element gives: NESTED when it has child elements, null when nil, else its text. */
export const nodeValue = (node: XNode): string | null | Nested =>
  node.children.length ? NESTED : node.nil ? null : node.text;

/** A given value, own properties only (an input is never read through its prototype). */
const givenOf = (input: object, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(input, key) ? (input as Record<string, unknown>)[key] : undefined;

/**
 * The writable fields of a resource as a body gives them (§2.5): from the record element, else (under
 * `<request>`) from the request itself. Registry-driven: what http/ decodes a record body into.
 */
export function recordFields(r: Resource, root: XNode | null, rec: XNode | null): Record<string, string | null | Nested> {
  const out: Record<string, string | null | Nested> = {};
  const seen = new Set<string>();
  for (const f of [...writableFields(r, 'create'), ...writableFields(r, 'update')]) {
    const name = f.input ?? f.name;
    if (seen.has(name)) continue;
    seen.add(name);
    const node = fieldNode(root, rec, name);
    if (node) out[inputKey(f)] = nodeValue(node);
  }
  return out;
}

/**
 * Read and check the writable fields of a resource from a given input (§2.5, §2.6), in the registry's
 * field order (one error per problem, §4.4). create: required fields must be present and defaults fill
 * the rest. update: only present fields. Fields written only by firm people are ignored for clients (§5.2).
 */
export function validateInput(
  r: Resource, mode: 'create' | 'update', input: object, caller: { firm: boolean }, only?: readonly string[],
): Validated {
  const values = new Map<string, InputValue>();
  const errors: string[] = [];
  for (const f of writableFields(r, mode)) {
    if (only && !only.includes(f.name)) continue;
    if (f.writeBy === 'firm' && !caller.firm) continue;
    const given = givenOf(input, inputKey(f));
    if (given === undefined) {
      if (mode === 'create') {
        if (f.required) errors.push(`${humanize(f.input ?? f.name)} can't be blank`);
        else if (f.default !== undefined) values.set(f.name, f.default);
      }
      continue;
    }
    const v = readGiven(f, given);
    if (v.ok) values.set(f.name, v.value);
    else errors.push(`${humanize(f.input ?? f.name)} ${v.message}`);
  }
  return { values, errors };
}

/** `validateInput` of a body's record element (tests, tools). */
export function validate(
  r: Resource, mode: 'create' | 'update', root: XNode | null, rec: XNode | null, caller: { firm: boolean },
  only?: readonly string[],
): Validated {
  return validateInput(r, mode, recordFields(r, root, rec), caller, only);
}

/** Stored columns of validated values (party fields split into id and type). */
export function toColumns(values: ReadonlyMap<string, InputValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of values) {
    if (name === 'responsible-party-id') {
      const p = v as Party;
      out.responsible_party_id = p ? p.id : null;
      out.responsible_party_type = p ? p.type : null;
    } else out[column(name)] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
  }
  return out;
}
