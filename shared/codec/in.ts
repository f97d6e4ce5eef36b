// Input codec: tolerant reading of request bodies (contract §2.5). XML goes through
// fast-xml-parser (well-formedness check + ordered parse, entities decoded here, strictly);
// JSON bodies (§8.14) become the same tree, so the field rules are written once.

import { XMLParser, XMLValidator } from 'fast-xml-parser';

export interface XNode {
  /** Element name with every `_` replaced by `-`. */
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XNode[];
  /** Text and CDATA content, concatenated, entities decoded. */
  readonly text: string;
  /** nil="true" */
  readonly nil: boolean;
}

/** A body that is not a well-formed document: answered 400. */
export class BodyError extends Error {}

const parser = new XMLParser({
  preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false,
  parseAttributeValue: false, trimValues: false, cdataPropName: '#cdata', processEntities: false,
  ignoreDeclaration: true, ignorePiTags: true, allowBooleanAttributes: false,
});

const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][\w.-]*);?/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
// Characters XML 1.0 allows (§2.2 of the XML spec).
const BAD_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Deeper documents are refused (400): no record of the API nests more than a few levels. */
export const MAX_DEPTH = 100;
/** Names that would reach an object's prototype if code ever used them as keys: refused (400). */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);
const TOO_DEEP = `the body is nested more than ${MAX_DEPTH} levels deep`;
const BAD_CHAR_MSG = 'body holds a character XML does not allow';

function checkName(name: string): void {
  if (RESERVED.has(name)) throw new BodyError(`the name ${name} is not allowed`);
  if (BAD_CHAR.test(name)) throw new BodyError(BAD_CHAR_MSG);
}

function decode(raw: string): string {
  if (BAD_CHAR.test(raw)) throw new BodyError(BAD_CHAR_MSG);
  if (!raw.includes('&')) return raw;
  return raw.replace(ENTITY, (m, ref: string) => {
    if (!m.endsWith(';')) throw new BodyError(`unterminated entity reference ${m}`);
    if (ref[0] === '#') {
      const cp = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!(cp >= 0 && cp <= 0x10ffff)) throw new BodyError(`bad character reference ${m}`);
      const ch = String.fromCodePoint(cp);
      if (BAD_CHAR.test(ch)) throw new BodyError(`character reference ${m} is not allowed in XML`);
      return ch;
    }
    const v = NAMED[ref];
    if (v === undefined) throw new BodyError(`undefined entity &${ref};`);
    return v;
  });
}

type Raw = Record<string, unknown>;

function build(entry: Raw, depth: number): XNode | null {
  let name = '';
  for (const k of Object.keys(entry)) if (k !== ':@') { name = k; break; }
  if (!name || name === '#text' || name === '#cdata' || name.startsWith('?') || name.startsWith('!')) return null;
  if (depth > MAX_DEPTH) throw new BodyError(TOO_DEEP);
  checkName(name);
  const rawAttrs = (entry[':@'] ?? {}) as Record<string, string>;
  const attrs: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(rawAttrs)) { checkName(k); attrs[k] = decode(String(v)); }
  const children: XNode[] = [];
  let text = '';
  for (const c of entry[name] as Raw[]) {
    if ('#text' in c) text += decode(String(c['#text']));
    else if ('#cdata' in c) {
      for (const t of c['#cdata'] as Raw[]) {
        const s = String(t['#text'] ?? '');
        if (BAD_CHAR.test(s)) throw new BodyError(BAD_CHAR_MSG);
        text += s;
      }
    } else {
      const n = build(c, depth + 1);
      if (n) children.push(n);
    }
  }
  const nil = attrs.nil === 'true';
  return { name: name.replace(/_/g, '-'), attrs, children, text: nil ? '' : text, nil };
}

/**
 * Parse a request body. Empty or whitespace-only is an empty document (null).
 * Not well-formed, a DOCTYPE, several roots, or bad entities: BodyError.
 */
export function parseXml(body: string): XNode | null {
  const s = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  if (s.trim() === '') return null;
  if (/<!DOCTYPE/i.test(s)) throw new BodyError('DOCTYPE declarations are not accepted');
  let parsed: Raw[];
  try {
    const v = XMLValidator.validate(s, { allowBooleanAttributes: false });
    if (v !== true) throw new BodyError(`malformed XML: ${v.err.msg} (line ${v.err.line})`);
    parsed = parser.parse(s) as Raw[];
  } catch (e) {
    if (e instanceof BodyError) throw e;
    // fast-xml-parser refuses deep nesting and reserved names itself, with a plain Error.
    const m = (e as Error).message;
    if (/nested/i.test(m)) throw new BodyError(TOO_DEEP);
    const reserved = /"(__proto__|constructor|prototype)"/.exec(m);
    throw new BodyError(reserved ? `the name ${reserved[1]} is not allowed` : `malformed XML: ${m}`);
  }
  const top = parsed.map((e) => build(e, 1)).filter((n): n is XNode => n !== null);
  if (top.length !== 1) throw new BodyError('an XML document has exactly one root element');
  return top[0];
}

/**
 * A JSON value as elements. The rules of the XML path hold here too: names `__proto__`, `constructor`,
 * `prototype` and characters XML cannot hold are refused (400), and so is nesting deeper than
 * MAX_DEPTH (objects and arrays both count a level).
 */
function fromJson(name: string, v: unknown, depth: number): XNode[] {
  if (depth > MAX_DEPTH) throw new BodyError(TOO_DEEP);
  checkName(name);
  const n = name.replace(/_/g, '-');
  if (Array.isArray(v)) return v.flatMap((x) => fromJson(name, x, depth + 1));
  if (v === null) return [{ name: n, attrs: { nil: 'true' }, children: [], text: '', nil: true }];
  if (typeof v === 'object') {
    return [{ name: n, attrs: {}, children: Object.entries(v as Raw).flatMap(([k, x]) => fromJson(k, x, depth + 1)), text: '', nil: false }];
  }
  const text = String(v);
  if (BAD_CHAR.test(text)) throw new BodyError(BAD_CHAR_MSG);
  return [{ name: n, attrs: {}, children: [], text, nil: false }];
}

/** A JSON body (§8.14) as the same tree: an object is a `<request>`, an array a list of `<item>`s. */
export function parseJson(body: string): XNode | null {
  if (body.trim() === '') return null;
  let v: unknown;
  try { v = JSON.parse(body); } catch (e) { throw new BodyError(`malformed JSON: ${(e as Error).message}`); }
  return jsonTree(v);
}

/** An already parsed JSON value as parseJson's tree (a feed page's records, parsed with the page: D348). */
export function jsonTree(v: unknown): XNode {
  if (Array.isArray(v)) return { name: 'request', attrs: {}, children: v.flatMap((x) => fromJson('item', x, 2)), text: '', nil: false };
  if (v === null || typeof v !== 'object') throw new BodyError('a JSON body must be an object or an array');
  return fromJson('request', v, 1)[0];
}

export const child = (n: XNode | null | undefined, name: string): XNode | undefined =>
  n ? n.children.find((c) => c.name === name) : undefined;

/**
 * The record element (§2.5): under a `<request>` root, its first child named like the record
 * (else the request itself); otherwise the root, whatever its name.
 */
export function recordElement(root: XNode | null, names: readonly string[]): XNode | null {
  if (!root) return null;
  if (root.name === 'request') return root.children.find((c) => names.includes(c.name)) ?? root;
  return root;
}

/** Read a field: from the record element, else (under `<request>`) from the request itself. */
export function fieldNode(root: XNode | null, rec: XNode | null, name: string): XNode | undefined {
  const n = name.replace(/_/g, '-');
  return child(rec, n) ?? (root && root.name === 'request' && rec !== root ? child(root, n) : undefined);
}
