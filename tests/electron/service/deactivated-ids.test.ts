// GET /people/deactivated-ids.xml (docs/api-extensions.md E2, D331): who is deactivated, for everyone's pickers,
// on both engines (the pg project runs the same file over PostgreSQL).

import { describe, expect, it } from 'vitest';
import { parseXml } from '../../../shared/codec/in.ts';
import { freshAccount, text, type Account, type Who } from '../../support/helpers.ts';

describe('GET /people/deactivated-ids', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const req = (who: Who, method: string, url: string, body?: string) => a.h.req(who, method, url, body);
  const ids = (body: string): number[] => parseXml(body)!.children.find((c) => c.name === 'ids')!.children.map((c) => Number(c.text));

  it('any signed-in person reads the ids of the deactivated people they see; complete on the team server', async () => {
    const empty = await req('finn', 'GET', '/people/deactivated-ids.xml');
    expect(empty.status, empty.body).toBe(200);
    expect(empty.xml().name).toBe('deactivated-ids');
    expect(text(empty.xml(), 'complete')).toBe('true');
    expect(ids(empty.body)).toEqual([]);
    const fran = a.f.person.fran;
    expect((await req('ada', 'DELETE', `/people/${fran}.xml`)).status).toBe(200);
    for (const who of ['ada', 'finn'] as const) {
      const r = await req(who, 'GET', '/people/deactivated-ids.xml');
      expect(r.status, `${who}: ${r.body}`).toBe(200);
      expect(ids(r.body), who).toEqual([fran]);
    }
    const j = await a.h.req('finn', 'GET', '/people/deactivated-ids.json');
    expect(j.status).toBe(200);
    expect(j.json()).toEqual({ complete: true, ids: [fran] });
    expect(j.body).not.toMatch(/password|scrypt|token|user/);
    expect((await req('finn', 'POST', '/people/deactivated-ids.xml')).status).toBe(405);
  });

  it('lists only people the caller sees (a client does not learn about people hidden from them)', async () => {
    // A person of another client company: a client (Cleo) does not see them (contract §5.3).
    const co = await req('ada', 'POST', '/companies.xml', '<company><name>Other Client</name></company>');
    const coId = Number(/(\d+)\.xml$/.exec(String(co.headers.location))![1]);
    const made = await req('ada', 'POST', '/people.xml', `<person><first-name>Ola</first-name><last-name>Other</last-name><user-name>ola</user-name><email-address>ola@other.example</email-address><company-id>${coId}</company-id></person>`);
    expect(made.status, made.body).toBe(201);
    const hidden = Number(/(\d+)\.xml$/.exec(String(made.headers.location))![1]);
    const cleoSees = (await req('cleo', 'GET', '/people.xml')).xml().children.map((c) => Number(text(c, 'id')));
    expect(cleoSees).not.toContain(hidden);
    const shown = cleoSees.find((id) => id !== a.f.person.ada && id !== a.f.person.cleo)!;
    for (const id of [hidden, shown]) expect((await req('ada', 'DELETE', `/people/${id}.xml`)).status).toBe(200);
    expect(ids((await req('cleo', 'GET', '/people/deactivated-ids.xml')).body)).toEqual([shown]);
    expect(ids((await req('ada', 'GET', '/people/deactivated-ids.xml')).body)).toEqual([hidden, shown].sort((x, y) => x - y));
  });

  it('on a replica: 200, not complete (its copy of a person does not say it)', async () => {
    await a.h.store.write(async (w) => { await w.run('INSERT INTO sync_state (key, value) VALUES (?, ?)', ['url', 'http://team.example']); });
    const r = await req('finn', 'GET', '/people/deactivated-ids.xml');
    expect(r.status, r.body).toBe(200);
    expect(text(r.xml(), 'complete')).toBe('false');
    expect((await a.h.req('finn', 'GET', '/people/deactivated-ids.json')).json()).toEqual({ complete: false, ids: [] });
  });

  it('without signing in: 401', async () => {
    const r = await a.h.app.inject({ method: 'GET', url: '/people/deactivated-ids.json', headers: { host: '127.0.0.1' } });
    expect(r.statusCode).toBe(401);
  });
});
