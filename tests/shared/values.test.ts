import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../shared/registry.ts';
import { parseXml } from '../../shared/codec/in.ts';
import {
  humanize, parseBoolean, parseDate, parseDateTime, parseHours, parseParty, parseQueryDate, toColumns, validate,
} from '../../shared/values.ts';

const v = <T>(p: { ok: boolean; value?: T }) => (p.ok ? p.value : 'ERR');

describe('value forms (§2.6)', () => {
  it('booleans', () => {
    expect(['true', 'FALSE', '1', '0', '', ' true '].map((s) => v(parseBoolean(s)))).toEqual([true, false, true, false, false, true]);
    expect(parseBoolean('yes').ok).toBe(false);
  });
  it('dates: both forms, trailing time ignored, real calendar dates only', () => {
    expect(v(parseDate('2024-02-29'))).toBe('2024-02-29');
    expect(v(parseDate('20240301'))).toBe('2024-03-01');
    expect(v(parseDate('2024-03-01T10:00:00Z'))).toBe('2024-03-01');
    expect(v(parseDate('2024-03-01 10:00'))).toBe('2024-03-01');
    for (const bad of ['2023-02-29', '2024-13-01', '2024-0301', 'tomorrow', '2024-04-31']) expect(parseDate(bad).ok).toBe(false);
    expect(parseQueryDate('20240101')).toBe('2024-01-01');
    expect(parseQueryDate('2024-01-01T00:00')).toBeNull();
  });
  it('datetimes in UTC', () => {
    expect(v(parseDateTime('2024-03-05T10:00:00Z'))).toBe('2024-03-05T10:00:00Z');
    expect(v(parseDateTime('2024-03-05T10:00:00+02:00'))).toBe('2024-03-05T08:00:00Z');
    expect(v(parseDateTime('2024-03-05T01:00:00-03:30'))).toBe('2024-03-05T04:30:00Z');
    expect(v(parseDateTime('2024-03-05 10:00:00'))).toBe('2024-03-05T10:00:00Z');
    expect(v(parseDateTime('20240305'))).toBe('2024-03-05T00:00:00Z');
    expect(parseDateTime('2024-03-05T25:00:00Z').ok).toBe(false);
    expect(parseDateTime('soon').ok).toBe(false);
  });
  it('hours', () => {
    expect(['1.5', '.25', '2', '1:30', ':15', '0', '1.005'].map((s) => v(parseHours(s)))).toEqual([1.5, 0.25, 2, 1.5, 0.25, 0, 1]);
    for (const bad of ['-1', 'abc', '1:75', '1.2.3', '']) expect(parseHours(bad).ok).toBe(false);
  });
  it('responsible party', () => {
    expect(v(parseParty('4'))).toEqual({ type: 'Person', id: 4 });
    expect(v(parseParty('c12'))).toEqual({ type: 'Company', id: 12 });
    expect(v(parseParty(''))).toBeNull();
    expect(parseParty('x4').ok).toBe(false);
  });
  it('humanizes field names Rails-style', () => {
    expect([humanize('category-id'), humanize('responsible-party'), humanize('title')]).toEqual(['Category', 'Responsible party', 'Title']);
  });
});

describe('validate (registry driven)', () => {
  const body = (s: string) => parseXml(s);
  it('create: required fields, defaults, one error per problem', () => {
    const root = body('<post><title></title><use-textile>maybe</use-textile><private>1</private></post>');
    const r = validate(RESOURCES.post, 'create', root, root, { firm: true });
    expect(r.errors).toEqual(["Title can't be blank", 'Use textile is not a boolean']);
    expect(r.values.get('private')).toBe(true);
    expect(r.values.get('body')).toBe('');
  });
  it('clients cannot write firm-only fields', () => {
    const root = body('<post><title>x</title><private>1</private></post>');
    expect(validate(RESOURCES.post, 'create', root, root, { firm: false }).values.has('private')).toBe(false);
  });
  it('update: only present fields, empty required is an error, 255 code points max', () => {
    const long = 'é'.repeat(256);
    const root = body(`<todo-list><name>${long}</name><description></description></todo-list>`);
    const r = validate(RESOURCES.todoList, 'update', root, root, { firm: true });
    expect(r.errors).toEqual(['Name is too long (maximum is 255 characters)']);
    expect([...r.values.keys()]).toEqual(['description']);
    const ok = body(`<todo-list><name>${'é'.repeat(255)}</name></todo-list>`);
    expect(validate(RESOURCES.todoList, 'update', ok, ok, { firm: true }).errors).toEqual([]);
  });
  it('an empty nil-able string becomes nil, an empty plain string stays empty (§2.5)', () => {
    const root = body('<project><announcement></announcement></project>');
    expect(validate(RESOURCES.project, 'update', root, root, { firm: true }).values.get('announcement')).toBeNull();
    const nil = body('<project><announcement nil="true">x</announcement></project>');
    expect(validate(RESOURCES.project, 'update', nil, nil, { firm: true }).values.get('announcement')).toBeNull();
    const post = body('<post><body></body></post>');
    expect(validate(RESOURCES.post, 'update', post, post, { firm: true }).values.get('body')).toBe('');
  });

  it('a field with child elements is invalid', () => {
    const root = body('<todo-item><content><b>x</b></content></todo-item>');
    expect(validate(RESOURCES.todoItem, 'create', root, root, { firm: true }).errors).toEqual(['Content is invalid']);
  });
  it('splits responsible parties into columns', () => {
    const root = body('<todo-item><content>x</content><responsible-party>c2</responsible-party></todo-item>');
    const r = validate(RESOURCES.todoItem, 'create', root, root, { firm: true });
    expect(toColumns(r.values)).toMatchObject({ content: 'x', responsible_party_id: 2, responsible_party_type: 'Company' });
  });
});
