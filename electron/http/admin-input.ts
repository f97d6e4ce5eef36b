// Decoding of the administration bodies (docs/api-extensions.md E2–E6) into the typed inputs of
// service/admin.ts: XML or JSON (the same tree), `<request>` wrapping tolerated as everywhere (§2.5).
// A field that cannot be read is a 422 naming the field (never its value: it may be a password).

import { fieldNode, recordElement, type XNode } from '../../shared/codec/in.ts';
import { parseBoolean, parseInteger } from '../../shared/values.ts';
import { ApiError, check } from '../service/context.ts';
import type { CompanyInput, PersonInput } from '../service/admin.ts';

class Reader {
  readonly errors: string[] = [];
  private readonly rec: XNode | null;
  private readonly root: XNode | null;
  constructor(root: XNode | null, names: readonly string[]) {
    if (!root) throw new ApiError(422, ['The request has no body: send a record']);
    this.root = root;
    this.rec = recordElement(root, names);
  }
  private node(name: string): XNode | undefined { return fieldNode(this.root, this.rec, name); }
  str(name: string): string | undefined {
    const n = this.node(name);
    if (!n) return undefined;
    if (n.children.length) { this.errors.push(`${label(name)} must be text`); return undefined; }
    return n.nil ? '' : n.text;
  }
  bool(name: string): boolean | undefined {
    const n = this.node(name);
    if (!n) return undefined;
    const v = parseBoolean(n.text);
    if (!v.ok) { this.errors.push(`${label(name)} must be true or false`); return undefined; }
    return v.value;
  }
  int(name: string): number | undefined {
    const n = this.node(name);
    if (!n) return undefined;
    const v = parseInteger(n.text);
    if (!v.ok || v.value < 1) { this.errors.push(`${label(name)} is invalid`); return undefined; }
    return v.value;
  }
  done(): void { check(this.errors); }
}

const label = (name: string): string => {
  const t = name.replace(/-id$/, '').replace(/-/g, ' ');
  return t.charAt(0).toUpperCase() + t.slice(1);
};

export function personInput(root: XNode | null): PersonInput {
  const r = new Reader(root, ['person']);
  const input: PersonInput = {
    firstName: r.str('first-name'), lastName: r.str('last-name'), userName: r.str('user-name'),
    emailAddress: r.str('email-address'), companyId: r.int('company-id'), administrator: r.bool('administrator'),
    password: r.str('password'), title: r.str('title'),
  };
  r.done();
  return input;
}

export function companyInput(root: XNode | null): CompanyInput {
  const r = new Reader(root, ['company']);
  const input: CompanyInput = { name: r.str('name'), canSeePrivate: r.bool('can-see-private') };
  r.done();
  return input;
}

/** `<person><id>N</id></person>`: the person to add to a project. */
export function memberInput(root: XNode | null): number {
  const r = new Reader(root, ['person']);
  const id = r.int('id');
  if (id === undefined && !r.errors.length) r.errors.push("Person can't be blank");
  r.done();
  return id!;
}

export function acceptInput(root: XNode | null): { token: string; userName: string; password: string } {
  const r = new Reader(root, ['invitation']);
  const token = r.str('token'), userName = r.str('user-name'), password = r.str('password');
  for (const [v, l] of [[token, 'Token'], [userName, 'User name'], [password, 'Password']] as const) if (!v) r.errors.push(`${l} can't be blank`);
  r.done();
  return { token: token!, userName: userName!, password: password! };
}
