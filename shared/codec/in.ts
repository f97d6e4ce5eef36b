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

function decode(raw: string): string {
  if (BAD_CHAR.test(raw)) throw new BodyError('body holds a character XML does not allow');
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

function build(entry: Raw): XNode | null {
  let name = '';
  for (const k of Object.keys(entry)) if (k !== ':@') { name = k; break; }
  if (!name || name === '#text' || name === '#cdata' || name.startsWith('?') || name.startsWith('!')) return null;
  const rawAttrs = (entry[':@'] ?? {}) as Record<string, string>;
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawAttrs)) attrs[k] = decode(String(v));
  const children: XNode[] = [];
  let text = '';
  for (const c of entry[name] as Raw[]) {
    if ('#text' in c) text += decode(String(c['#text']));
    else if ('#cdata' in c) {
      for (const t of c['#cdata'] as Raw[]) {
        const s = String(t['#text'] ?? '');
        if (BAD_CHAR.test(s)) throw new BodyError('body holds a character XML does not allow');
        text += s;
      }
    } else {
      const n = build(c);
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
  const v = XMLValidator.validate(s, { allowBooleanAttributes: false });
  if (v !== true) throw new BodyError(`malformed XML: ${v.err.msg} (line ${v.err.line})`);
  const top = (parser.parse(s) as Raw[]).map(build).filter((n): n is XNode => n !== null);
  if (top.length !== 1) throw new BodyError('an XML document has exactly one root element');
  return top[0];
}

function fromJson(name: string, v: unknown): XNode[] {
  const n = name.replace(/_/g, '-');
  if (Array.isArray(v)) return v.flatMap((x) => fromJson(name, x));
  if (v === null) return [{ name: n, attrs: { nil: 'true' }, children: [], text: '', nil: true }];
  if (typeof v === 'object') {
    return [{ name: n, attrs: {}, children: Object.entries(v as Raw).flatMap(([k, x]) => fromJson(k, x)), text: '', nil: false }];
  }
  return [{ name: n, attrs: {}, children: [], text: String(v), nil: false }];
}

/** A JSON body (§8.14) as the same tree: an object is a `<request>`, an array a list of `<item>`s. */
export function parseJson(body: string): XNode | null {
  if (body.trim() === '') return null;
  let v: unknown;
  try { v = JSON.parse(body); } catch (e) { throw new BodyError(`malformed JSON: ${(e as Error).message}`); }
  if (Array.isArray(v)) return { name: 'request', attrs: {}, children: v.flatMap((x) => fromJson('item', x)), text: '', nil: false };
  if (v === null || typeof v !== 'object') throw new BodyError('a JSON body must be an object or an array');
  return fromJson('request', v)[0];
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
