import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../../shared/registry.ts';
import { esc, formatFloat, jsonOne, xmlErrors, xmlMany, xmlOne, xmlPlain, XML_DECL } from '../../../shared/codec/out.ts';
import { BodyError, fieldNode, parseJson, parseXml, recordElement } from '../../../shared/codec/in.ts';

const firm = { callerId: 1, firm: true, admin: false };
const client = { callerId: 9, firm: false, admin: false };

const entry = { id: 7, project_id: 3, person_id: 4, person_name: 'Finn Fellow', date: '2024-03-04', hours: 2, description: 'A & B <c>', todo_item_id: null, private: 0 };

describe('XML out', () => {
  it('writes typed, dasherized elements with nil and escaping', () => {
    const x = xmlOne(RESOURCES.timeEntry, entry, firm);
    expect(x.startsWith(XML_DECL)).toBe(true);
    expect(x).toContain('<hours type="float">2.0</hours>');
    expect(x).toContain('<todo-item-id type="integer" nil="true"></todo-item-id>');
    expect(x).toContain('<description>A &amp; B &lt;c&gt;</description>');
    expect(x).toContain('<private type="boolean">false</private>');
    expect(x).toContain('<date type="date">2024-03-04</date>');
  });

  it('hides firm-only elements from clients', () => {
    expect(xmlOne(RESOURCES.timeEntry, entry, client)).not.toContain('<private');
  });

  it('round-trips through the input parser', () => {
    const back = parseXml(xmlOne(RESOURCES.timeEntry, { ...entry, description: 'é\u{1F600} "q" \r\n x' }, firm))!;
    expect(back.name).toBe('time-entry');
    expect(fieldNode(back, back, 'description')!.text).toBe('é\u{1F600} "q" \r\n x');
    expect(fieldNode(back, back, 'todo-item-id')!.nil).toBe(true);
  });

  it('keeps the collection root when empty and adds attributes', () => {
    expect(xmlMany(RESOURCES.comment, [], firm, { attrs: { count: 0 } })).toBe(`${XML_DECL}<comments count="0" type="array">\n</comments>\n`);
  });

  it('renders non-nil unset integers as 0 and omits data-conditional fields', () => {
    const post = { id: 1, milestone_id: null, category_id: null, title: 't', body: '', extended_body: '', display_body: '', display_extended_body: null };
    const x = xmlOne(RESOURCES.post, post, firm);
    expect(x).toContain('<milestone-id type="integer">0</milestone-id>');
    expect(x).toContain('<category-id type="integer" nil="true"></category-id>');
    const item = xmlOne(RESOURCES.todoItem, { id: 1, completed: 0, completed_at: null, responsible_party_id: null }, firm);
    expect(item).not.toContain('completed-at');
    expect(item).not.toContain('responsible-party');
  });

  it('writes the untyped <complete> of todo lists', () => {
    expect(xmlOne(RESOURCES.todoList, { id: 1, complete: 1, completed: 1 }, firm)).toContain('<complete>true</complete>');
  });

  it('formats floats with a fractional part and escapes attributes', () => {
    expect([formatFloat(2), formatFloat(1.5), formatFloat(0.25), formatFloat(1.005 * 100 / 100)]).toEqual(['2.0', '1.5', '0.25', '1.0']);
    expect(esc('"a"&')).toBe('&quot;a&quot;&amp;');
    expect(xmlErrors(['Title can\'t be blank'])).toContain("<error>Title can't be blank</error>");
    expect(xmlPlain('count', [['on-hold', 'integer', 2]])).toContain('<on-hold type="integer">2</on-hold>');
  });

  it('formats every float as the plain rule does, from its table or not, asked once or again (D201)', () => {
    const rule = (n: number) => { const r = Math.round(n * 100) / 100; return Number.isInteger(r) ? r.toFixed(1) : String(r); };
    const values = [0, -0, 0.004, 0.005, 0.994, 0.995, 99.99, 99.994, 99.995, 100, 123.456, -0.004, -0.25, -3, 1e21, NaN, Infinity, -Infinity, 1e-9];
    let seed = 7;
    for (let k = 0; k < 20_000; k++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      const x = seed / 2_147_483_648;
      values.push(Math.round(x * 2400) / 100, x * 150 - 25, Math.round(x * 40) / 4);
    }
    for (const n of values) {
      expect(formatFloat(n), String(n)).toBe(rule(n));
      expect(formatFloat(n), `${n} again`).toBe(rule(n));
    }
  });

  it('JSON uses underscored keys and native types', () => {
    expect(jsonOne(RESOURCES.timeEntry, entry, firm)).toEqual({
      date: '2024-03-04', description: 'A & B <c>', hours: 2, id: 7, person_id: 4, person_name: 'Finn Fellow', private: false, project_id: 3, todo_item_id: null,
    });
  });
});

describe('XML in', () => {
  it('treats empty and whitespace bodies as empty documents', () => {
    expect(parseXml('')).toBeNull();
    expect(parseXml(' \n\t')).toBeNull();
  });

  it('normalises underscores, decodes entities and CDATA, keeps text untrimmed', () => {
    const n = parseXml('<?xml version="1.0"?><request><todo_item><content> a &amp; b &#233;&#x41;<![CDATA[<x>]]> </content></todo_item><!-- c --></request>')!;
    const rec = recordElement(n, ['todo-item', 'item'])!;
    expect(rec.name).toBe('todo-item');
    expect(fieldNode(n, rec, 'content')!.text).toBe(' a & b éA<x> ');
  });

  it('finds fields on the record element, then on <request>', () => {
    const n = parseXml('<request><item><content>x</content></item><responsible-party>4</responsible-party></request>')!;
    const rec = recordElement(n, ['todo-item', 'item']);
    expect(fieldNode(n, rec, 'content')!.text).toBe('x');
    expect(fieldNode(n, rec, 'responsible_party')!.text).toBe('4');
    const flat = parseXml('<request><content>y</content></request>')!;
    expect(recordElement(flat, ['todo-item'])).toBe(flat);
  });

  it('reads nil="true" as empty whatever the content', () => {
    expect(parseXml('<a><b nil="true">zz</b></a>')!.children[0]).toMatchObject({ nil: true, text: '' });
  });

  it.each([
    ['<a><b></a>'], ['<a>x</a><b/>'], ['not xml'], ['<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'], ['<a>&nope;</a>'], ['<a>&#0;</a>'], ['<a>&amp</a>'],
  ])('rejects %j', (body) => {
    expect(() => parseXml(body)).toThrow(BodyError);
  });

  it('reads JSON bodies into the same tree', () => {
    const n = parseJson('{"todo_item": {"content": "x", "due_at": null, "n": 3}}')!;
    const rec = recordElement(n, ['todo-item'])!;
    expect(fieldNode(n, rec, 'content')!.text).toBe('x');
    expect(fieldNode(n, rec, 'due-at')!.nil).toBe(true);
    expect(fieldNode(n, rec, 'n')!.text).toBe('3');
    expect(parseJson('[{"id": 5}, {"id": 6}]')!.children.map((c) => c.children[0].text)).toEqual(['5', '6']);
    expect(() => parseJson('{bad')).toThrow(BodyError);
    expect(() => parseJson('"str"')).toThrow(BodyError);
  });
});
