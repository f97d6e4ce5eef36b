// Administration on a replica (D338, D339, issue #27): on a replica of a team server, people, companies, projects
// and members are changed at once here and queued as intents, pushed to the team server's routes at the next sync
// with the local ids mapped to the remote's; a replica of a plain server refuses them at once and queues nothing.
// The team server follows BIVOUAC_TEST_STORE (SQLite in `node`, PostgreSQL in `pg`).

import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, loc, startProxy, startRemote, startReplica, type Proxy, type Remote, type Replica, type Requester } from '../../support/sync-helpers.ts';
import { defaultEngine } from '../../support/helpers.ts';
import { pgSkipReason } from '../../support/pg.ts';

const engine = defaultEngine();
const skip = engine === 'postgres' ? pgSkipReason() : '';
const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const SECRET = 'offline-passphrase-1';

/** The id of the record of `el` whose `field` is `value`, in a collection's XML. */
function idOf(body: string, el: string, field: string, value: string): string | undefined {
  for (const m of body.matchAll(new RegExp(`<${el}>([^]*?)</${el}>`, 'g'))) {
    if (m[1].includes(`<${field}>${value}</${field}>`)) return /<id type="integer">(\d+)<\/id>/.exec(m[1])![1];
  }
  return undefined;
}
const count = (body: string, field: string, value: string) => body.split(`<${field}>${value}</${field}>`).length - 1;
const person = (o: Record<string, string | number>) =>
  `${XML}<person>${Object.entries({ 'first-name': 'Nia', 'last-name': 'New', 'user-name': 'nia', 'email-address': 'nia@summit.example', ...o })
    .map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</person>`;

async function ids(req: Requester) {
  const firm = idOf((await req('GET', '/companies.xml')).body, 'company', 'name', 'Summit Firm Ltd')!;
  const alpha = idOf((await req('GET', '/projects.xml')).body, 'project', 'name', 'Alpha Ascent')!;
  const cleo = idOf((await req('GET', '/people.xml')).body, 'person', 'email-address', 'cleo@valley.example')!;
  return { firm, alpha, cleo };
}

describe.skipIf(skip)(`administration on a replica (team server on ${engine})`, () => {
  let remote: Remote | undefined;
  let proxy: Proxy | undefined;
  const reps: Replica[] = [];
  afterEach(async () => { await closeAll(reps, proxy, remote); remote = undefined; proxy = undefined; });

  async function pair(who: 'ada' | 'fran', plain = false): Promise<Replica> {
    remote = await startRemote();
    proxy = await startProxy(remote.url, { plain });
    const r = await startReplica(proxy.url, who);
    reps.push(r);
    await r.engine.run();
    return r;
  }

  it('offline: a person (with a password), a member, a company, a rename and a deactivation are made here, queued, and reach the team server with its ids', async () => {
    const r = await pair('ada');
    expect((await r.engine.status()).administration).toEqual({ mode: 'queued', at: proxy!.url, plain: false });
    const local = await ids(r.req);
    proxy!.faults.down = true;

    const co = loc(await r.req('POST', '/companies.xml', `${XML}<company><name>Ridge Guides</name></company>`));
    const nia = loc(await r.req('POST', '/people.xml', person({ 'company-id': local.firm, password: SECRET })));
    const rio = loc(await r.req('POST', '/people.xml', person({ 'first-name': 'Rio', 'user-name': 'rio', 'email-address': 'rio@ridge.example', 'company-id': co })));
    expect((await r.req('POST', `/projects/${local.alpha}/people.xml`, `${XML}<person><id>${nia}</id></person>`)).status).toBe(201);
    expect((await r.req('POST', `/projects/${local.alpha}/people.xml`, `${XML}<person><id>${rio}</id></person>`)).status).toBe(201);
    expect((await r.req('PUT', `/projects/${local.alpha}.xml`, `${XML}<project><name>Alpha Renamed</name></project>`)).status).toBe(200);
    expect((await r.req('DELETE', `/people/${local.cleo}.xml`)).status).toBe(200);
    const finn = idOf((await r.req('GET', '/people.xml')).body, 'person', 'user-name', 'finn')!;
    expect((await r.req('DELETE', `/projects/${local.alpha}/people/${finn}.xml`)).status).toBe(200);
    expect(count((await r.req('GET', `/projects/${local.alpha}/people.xml`)).body, 'user-name', 'finn')).toBe(0);
    // Here at once: the person, the membership, the rename.
    expect(count((await r.req('GET', `/projects/${local.alpha}/people.xml`)).body, 'user-name', 'nia')).toBe(1);
    expect((await r.req('GET', `/projects/${local.alpha}.xml`)).body).toContain('<name>Alpha Renamed</name>');
    expect((await r.engine.status()).pending).toBe(8);
    // The password is in the queued intent only: no row, no row change holds it or a hash of it.
    expect(await r.store.all("SELECT id FROM people WHERE password_hash IS NOT NULL AND user_name IN ('nia', 'rio')")).toEqual([]);
    expect(JSON.stringify(await r.store.all('SELECT changes FROM sync_outbox'))).not.toContain(SECRET);

    proxy!.faults.down = false;
    await r.engine.run();
    const st = await r.engine.status();
    expect([st.pending, st.rejected], JSON.stringify(await r.engine.rejected())).toEqual([0, 0]);
    expect(JSON.stringify(await r.store.all('SELECT * FROM sync_outbox'))).not.toContain(SECRET);

    const ada = remote!.as('ada');
    const there = await ids(ada);
    const people = (await ada('GET', '/people.xml')).body;
    const niaThere = idOf(people, 'person', 'user-name', 'nia')!;
    expect(niaThere).toBeDefined();
    expect(idOf(people, 'person', 'user-name', 'rio')).toBeDefined();
    expect((await ada('GET', `/people/${idOf(people, 'person', 'user-name', 'rio')}.xml`)).body)
      .toContain(`<company-id type="integer">${idOf((await ada('GET', '/companies.xml')).body, 'company', 'name', 'Ridge Guides')}</company-id>`);
    const members = (await ada('GET', `/projects/${there.alpha}/people.xml`)).body;
    expect(count(members, 'user-name', 'nia')).toBe(1);
    expect(count(members, 'user-name', 'rio')).toBe(1);
    expect(count(members, 'user-name', 'finn')).toBe(0);
    expect((await ada('GET', `/projects/${there.alpha}.xml`)).body).toContain('<name>Alpha Renamed</name>');
    expect(count((await ada('GET', '/people/deactivated.xml')).body, 'user-name', 'cleo')).toBe(1);
    // Nia signs in on the team server with the password given offline.
    const me = await remote!.app.inject({ method: 'GET', url: '/me.xml', headers: { host: '127.0.0.1', authorization: `Basic ${Buffer.from(`nia:${SECRET}`).toString('base64')}` } });
    expect(me.statusCode).toBe(200);
    expect(me.body).toContain(`<id type="integer">${niaThere}</id>`);
    // The ids were mapped: the next pull brings the same people back, not copies.
    await r.engine.run();
    const here = (await r.req('GET', '/people.xml')).body;
    expect(count(here, 'user-name', 'nia')).toBe(1);
    expect(idOf(here, 'person', 'user-name', 'nia')).toBe(nia);
    expect(count((await r.req('GET', '/companies.xml')).body, 'name', 'Ridge Guides')).toBe(1);
  }, 60_000);

  it('a password reset offline by an administrator reaches the team server (only there is it a hash)', async () => {
    const r = await pair('ada');
    const fran = idOf((await r.req('GET', '/people.xml')).body, 'person', 'user-name', 'fran')!;
    const hashBefore = (await r.store.get<{ h: string | null }>('SELECT password_hash AS h FROM people WHERE id = ?', [Number(fran)]))!.h;
    proxy!.faults.down = true;
    expect((await r.req('PUT', `/people/${fran}.xml`, `${XML}<person><password>${SECRET}</password></person>`)).status).toBe(200);
    expect((await r.req('PUT', `/people/${fran}.xml`, `${XML}<person><password>short</password></person>`)).status).toBe(422); // the policy, here too
    expect((await r.store.get<{ h: string | null }>('SELECT password_hash AS h FROM people WHERE id = ?', [Number(fran)]))!.h).toBe(hashBefore);
    proxy!.faults.down = false;
    await r.engine.run();
    expect(await r.engine.rejected()).toEqual([]);
    const signIn = (pw: string) => remote!.app.inject({ method: 'GET', url: '/me.xml', headers: { host: '127.0.0.1', authorization: `Basic ${Buffer.from(`fran:${pw}`).toString('base64')}` } });
    expect((await signIn(SECRET)).statusCode).toBe(200);
    expect((await signIn('fran-pass-2')).statusCode).toBe(401);
    expect(JSON.stringify(await r.store.all('SELECT * FROM sync_outbox'))).not.toContain(SECRET);
  }, 60_000);

  it('a person create the team server refuses (user name taken there meanwhile) is listed in words and rolled back here, with its membership', async () => {
    const r = await pair('ada');
    const local = await ids(r.req);
    proxy!.faults.down = true;
    const firmThere = (await ids(remote!.as('ada'))).firm;
    expect((await remote!.as('ada')('POST', '/people.xml', person({ 'company-id': firmThere, 'email-address': 'other@summit.example' }))).status).toBe(201);
    const nia = loc(await r.req('POST', '/people.xml', person({ 'company-id': local.firm, password: SECRET })));
    const token = String((await r.store.get<{ token: string }>("SELECT token FROM people WHERE email_address = 'nia@summit.example'"))!.token);
    expect((await r.req('POST', `/projects/${local.alpha}/people.xml`, `${XML}<person><id>${nia}</id></person>`)).status).toBe(201);
    proxy!.faults.down = false;
    await r.engine.run();
    const rejected = await r.engine.rejected();
    expect(rejected.map((x) => x.message).join(' | ')).toContain('User name has already been taken');
    expect(rejected.find((x) => x.message.includes('User name'))).toMatchObject({ resource: 'person', recordId: Number(nia), status: 422 });
    const st = await r.engine.status();
    expect(st.pending).toBe(0);
    // The local person is gone; the team server's Nia (from the pull) is the one shown, once, and she is no member.
    const here = (await r.req('GET', '/people.xml')).body;
    expect(count(here, 'user-name', 'nia')).toBe(1);
    expect((await r.store.all("SELECT id FROM people WHERE email_address = 'nia@summit.example'"))).toEqual([]);
    expect(count((await r.req('GET', `/projects/${local.alpha}/people.xml`)).body, 'user-name', 'nia')).toBe(0);
    // The refused person is in the conflict log without credentials; the password is nowhere in the database.
    expect(JSON.stringify(await r.store.all('SELECT * FROM sync_conflicts'))).toContain('nia@summit.example');
    for (const { name } of await r.store.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")) {
      const rows = JSON.stringify(await r.store.all(`SELECT * FROM "${name}"`));
      expect(rows, name).not.toContain(SECRET);
      if (name !== 'people') expect(rows, name).not.toContain(token);
    }
  }, 60_000);

  it('a membership the team server refuses (the person deactivated there meanwhile) is listed and undone here', async () => {
    const r = await pair('ada');
    const local = await ids(r.req);
    const crevasse = idOf((await r.req('GET', '/projects.xml')).body, 'project', 'name', 'Crevasse Survey')!;
    proxy!.faults.down = true;
    expect((await remote!.as('ada')('DELETE', `/people/${(await ids(remote!.as('ada'))).cleo}.xml`)).status).toBe(200);
    expect((await r.req('POST', `/projects/${crevasse}/people.xml`, `${XML}<person><id>${local.cleo}</id></person>`)).status).toBe(201);
    expect(count((await r.req('GET', `/projects/${crevasse}/people.xml`)).body, 'email-address', 'cleo@valley.example')).toBe(1);
    proxy!.faults.down = false;
    await r.engine.run();
    expect((await r.engine.rejected()).map((x) => [x.status, x.message])).toEqual([[422, 'This person is deactivated']]);
    expect((await r.engine.status()).pending).toBe(0);
    expect(count((await r.req('GET', `/projects/${crevasse}/people.xml`)).body, 'email-address', 'cleo@valley.example')).toBe(0);
  }, 60_000);

  it('a deactivation the team server refuses (no longer an administrator there) is listed and undone here', async () => {
    const r = await pair('ada');
    const fran = idOf((await r.req('GET', '/people.xml')).body, 'person', 'user-name', 'fran')!;
    proxy!.faults.down = true;
    expect((await r.req('DELETE', `/people/${fran}.xml`)).status).toBe(200);
    expect(await r.store.get('SELECT active FROM people WHERE id = ?', [Number(fran)])).toEqual({ active: 0 });
    // On the team server, Finn becomes an administrator and takes Ada's rights away.
    const there = remote!.as('ada');
    const people = (await there('GET', '/people.xml')).body;
    const finnThere = idOf(people, 'person', 'user-name', 'finn')!;
    expect((await there('PUT', `/people/${finnThere}.xml`, `${XML}<person><administrator>true</administrator></person>`)).status).toBe(200);
    expect((await remote!.as('finn')('PUT', `/people/${idOf(people, 'person', 'user-name', 'ada')}.xml`, `${XML}<person><administrator>false</administrator></person>`)).status).toBe(200);
    proxy!.faults.down = false;
    await r.engine.run();
    expect((await r.engine.rejected()).map((x) => [x.status, x.message])).toEqual([[403, 'Only administrators can deactivate people']]);
    expect(await r.store.get('SELECT active FROM people WHERE id = ?', [Number(fran)])).toEqual({ active: 1 });
  }, 60_000);

  it('a company create the team server refuses (its name taken there meanwhile) goes, with the person made in it; one moved into it returns', async () => {
    const r = await pair('ada');
    proxy!.faults.down = true;
    expect((await remote!.as('ada')('POST', '/companies.xml', `${XML}<company><name>Ridge Guides</name></company>`)).status).toBe(201);
    const co = loc(await r.req('POST', '/companies.xml', `${XML}<company><name>Ridge Guides</name></company>`));
    loc(await r.req('POST', '/people.xml', person({ 'user-name': 'rio', 'email-address': 'rio@ridge.example', 'company-id': co })));
    // Someone the team server knows, moved into it here: back in their company when it goes.
    const local = await ids(r.req);
    const fran = idOf((await r.req('GET', '/people.xml')).body, 'person', 'user-name', 'fran')!;
    expect((await r.req('PUT', `/people/${fran}.xml`, `${XML}<person><company-id>${co}</company-id></person>`)).status).toBe(200);
    proxy!.faults.down = false;
    await r.engine.run();
    expect((await r.engine.rejected()).map((x) => x.message).join(' | ')).toContain('Name has already been taken');
    expect((await r.engine.status()).pending).toBe(0);
    expect(await r.store.all("SELECT id FROM people WHERE user_name = 'rio'")).toEqual([]);
    expect(await r.store.get('SELECT company_id FROM people WHERE id = ?', [Number(fran)])).toEqual({ company_id: Number(local.firm) });
    // The team server's company (from the pull) is the one shown, once.
    expect(count((await r.req('GET', '/companies.xml')).body, 'name', 'Ridge Guides')).toBe(1);
  }, 60_000);

  it('a member added offline waits for the person it names (the schedule orders them)', async () => {
    const r = await pair('ada');
    const local = await ids(r.req);
    proxy!.faults.down = true;
    // Two people and their memberships, interleaved: each membership must follow its person's create.
    const a = loc(await r.req('POST', '/people.xml', person({ 'company-id': local.firm, 'user-name': 'ana', 'email-address': 'ana@x.example' })));
    const b = loc(await r.req('POST', '/people.xml', person({ 'company-id': local.firm, 'user-name': 'bo', 'email-address': 'bo@x.example' })));
    await r.req('POST', `/projects/${local.alpha}/people.xml`, `${XML}<person><id>${b}</id></person>`);
    await r.req('POST', `/projects/${local.alpha}/people.xml`, `${XML}<person><id>${a}</id></person>`);
    proxy!.faults.down = false;
    await r.engine.run();
    expect(await r.engine.rejected()).toEqual([]);
    const members = (await remote!.as('ada')('GET', `/projects/${(await ids(remote!.as('ada'))).alpha}/people.xml`)).body;
    expect([count(members, 'user-name', 'ana'), count(members, 'user-name', 'bo')]).toEqual([1, 1]);
  }, 60_000);

  it('a non-administrator on a replica of a team server gets 403, as on the team server, and nothing is queued', async () => {
    const r = await pair('fran');
    const local = await ids(r.req);
    for (const [m, url, body] of [
      ['POST', '/people.xml', person({ 'company-id': local.firm })],
      ['PUT', `/people/${local.cleo}.xml`, `${XML}<person><first-name>X</first-name></person>`],
      ['DELETE', `/people/${local.cleo}.xml`, undefined],
      ['POST', '/companies.xml', `${XML}<company><name>Nope Co</name></company>`],
      ['POST', `/projects/${local.alpha}/people.xml`, `${XML}<person><id>${local.cleo}</id></person>`],
      ['DELETE', `/projects/${local.alpha}/people/${local.cleo}.xml`, undefined],
    ] as const) expect((await r.req(m, url, body)).status, `${m} ${url}`).toBe(403);
    expect((await r.engine.status()).pending).toBe(0);
  }, 60_000);

  it('against a plain server every administration is refused at once, in words, and the outbox stays empty', async () => {
    const r = await pair('ada', true);
    const st = await r.engine.status();
    expect(st.administration).toEqual({ mode: 'elsewhere', at: proxy!.url, plain: true });
    const local = await ids(r.req);
    for (const [m, url, body] of [
      ['POST', '/people.xml', person({ 'company-id': local.firm, password: SECRET })],
      ['PUT', `/people/${local.cleo}.xml`, `${XML}<person><first-name>X</first-name></person>`],
      ['DELETE', `/people/${local.cleo}.xml`, undefined],
      ['POST', '/companies.xml', `${XML}<company><name>Nope Co</name></company>`],
      ['PUT', `/companies/${local.firm}.xml`, `${XML}<company><name>Renamed Co</name></company>`],
      ['POST', `/projects/${local.alpha}/people.xml`, `${XML}<person><id>${local.cleo}</id></person>`],
      ['DELETE', `/projects/${local.alpha}/people/${local.cleo}.xml`, undefined],
    ] as const) {
      const res = await r.req(m, url, body);
      expect(res.status, `${m} ${url}`).toBe(409);
      expect(res.body).toContain(`${proxy!.url} is not a Bivouac team server: people, companies and project members are managed there`);
    }
    expect((await r.engine.status()).pending).toBe(0);
    expect(await r.store.all('SELECT seq FROM sync_outbox')).toEqual([]);
  }, 60_000);

  it('a disconnected replica refuses with the team server\'s address, and says so in its status', async () => {
    const r = await pair('ada');
    await r.engine.disconnect();
    const st = await r.engine.status();
    expect(st.administration).toMatchObject({ mode: 'elsewhere', at: proxy!.url, plain: false });
    const res = await r.req('POST', '/companies.xml', `${XML}<company><name>Nope Co</name></company>`);
    expect(res.status).toBe(409);
    expect(res.body).toContain(`This is a copy of the team server at ${proxy!.url}`);
  }, 60_000);
});
