// Administration (docs/api-extensions.md E2–E6, D273–D277): people, companies, projects and members,
// invitations, for each kind of caller, on both engines.

import { describe, expect, it } from 'vitest';
import { parseXml } from '../../../shared/codec/in.ts';
import { FIXTURE, freshAccount, harnessOver, locId, text, type Account, type Harness, type Who } from '../../support/helpers.ts';
import { freshDatabase, pgSkipReason } from '../../support/pg.ts';
import { PgStore } from '../../../electron/store/postgres.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { DB_FILE } from '../../../electron/server.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../../electron/http/app.ts';
import { seededStore } from '../../support/helpers.ts';

const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

async function as(h: Harness, auth: string | null, method: string, url: string, body?: string, headers: Record<string, string> = {}) {
  const r = await h.app.inject({ method: method as 'GET', url, payload: body, headers: { host: '127.0.0.1', ...(auth ? { authorization: auth } : {}), ...headers } });
  return { status: r.statusCode, body: r.body, headers: r.headers, xml: () => parseXml(r.body)! };
}
const errors = (body: string): string[] => parseXml(body)!.children.map((c) => c.text);

const newPerson = (o: Record<string, string | number | boolean> = {}): string => {
  const f = { 'first-name': 'Nia', 'last-name': 'New', 'user-name': 'nia', 'email-address': 'nia@summit.example', ...o };
  return `<person>${Object.entries(f).map(([k, v]) => `<${k}>${v}</${k}>`).join('')}</person>`;
};

describe('administration', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const req = (who: Who, method: string, url: string, body?: string) => a.h.req(who, method, url, body);

  it('POST /people.xml: administrators only; 201 + Location; the person signs in at once; no password in the answer', async () => {
    const body = newPerson({ 'company-id': a.f.company.firm, password: 'long-enough-1' });
    for (const who of ['fran', 'cleo'] as const) {
      const r = await req(who, 'POST', '/people.xml', body);
      expect(r.status, who).toBe(403);
      expect(errors(r.body)[0]).toMatch(/administrators/);
    }
    const r = await req('ada', 'POST', '/people.xml', body);
    expect(r.status, r.body).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/people/${id}.xml`);
    expect(r.body).not.toMatch(/long-enough-1|scrypt|password/);
    expect(text(r.xml(), 'user-name')).toBe('nia');
    const me = await as(a.h, basic('nia', 'long-enough-1'), 'GET', '/me.xml');
    expect(me.status).toBe(200);
    expect(Number(text(me.xml(), 'id'))).toBe(id);
    // She is on no project yet: she sees none.
    expect((await as(a.h, basic('nia', 'long-enough-1'), 'GET', '/projects.xml')).xml().children).toEqual([]);
    // JSON twin.
    const j = await a.h.req('ada', 'POST', '/people.json', JSON.stringify({ person: { first_name: 'Jo', last_name: 'Json', user_name: 'jo', email_address: 'jo@x.example', company_id: a.f.company.client } }), { 'content-type': 'application/json' });
    expect(j.status, j.body).toBe(201);
    expect(j.json()).toMatchObject({ first_name: 'Jo', client_id: a.f.company.client });
  });

  it('validation: unique user name and e-mail, password policy, company, administrators of the firm only: 422 with every problem', async () => {
    const r = await req('ada', 'POST', '/people.xml', newPerson({ 'user-name': 'fran', 'email-address': 'CLEO@valley.example', 'company-id': a.f.company.client, administrator: true, password: 'fran' }));
    expect(r.status).toBe(422);
    expect(errors(r.body)).toEqual([
      'User name has already been taken', 'Email address has already been taken',
      'Only people of the firm can be administrators', 'Password is too short (minimum is 8 characters)', 'Password cannot be the user name',
    ]);
    expect(r.body).not.toContain('<password');
    const blank = await req('ada', 'POST', '/people.xml', '<person><first-name> </first-name></person>');
    expect(errors(blank.body)).toEqual(["First name can't be blank", "Last name can't be blank", "User name can't be blank", "Email address can't be blank", "Company can't be blank"]);
    expect((await req('ada', 'POST', '/people.xml', newPerson({ 'company-id': 999999 }))).status).toBe(422);
    expect(errors((await req('ada', 'POST', '/people.xml', newPerson({ 'company-id': 'x' }))).body)).toEqual(['Company is invalid']);
    expect(errors((await req('ada', 'POST', '/people.xml', newPerson({ 'company-id': a.f.company.firm, password: 'samesame', 'user-name': 'SameSame' }))).body)).toEqual(['Password cannot be the user name']);
    // Nothing was written.
    expect((await req('ada', 'GET', '/people.xml')).xml().children).toHaveLength(5);
  });

  it('PUT /people/{id}.xml: administrators change anything; a person only their own password; others 403', async () => {
    const fran = a.f.person.fran;
    expect((await req('finn', 'PUT', `/people/${fran}.xml`, '<person><first-name>X</first-name></person>')).status).toBe(403);
    expect((await req('cleo', 'PUT', `/people/${fran}.xml`, '<person><password>whatever-123</password></person>')).status).toBe(403);
    expect((await req('fran', 'PUT', `/people/${fran}.xml`, '<person><first-name>X</first-name></person>')).status).toBe(403);
    const short = await req('fran', 'PUT', `/people/${fran}.xml`, '<person><password>short</password></person>');
    expect(short.status).toBe(422);
    const own = await req('fran', 'PUT', `/people/${fran}.xml`, '<person><password>a-new-passphrase</password></person>');
    expect(own.status, own.body).toBe(200);
    expect(own.body).not.toContain('a-new-passphrase');
    expect((await req('fran', 'GET', '/me.xml')).status).toBe(401); // the old password is gone at once
    expect((await as(a.h, basic('fran', 'a-new-passphrase'), 'GET', '/me.xml')).status).toBe(200);
    const upd = await req('ada', 'PUT', `/people/${fran}.xml`, '<person><first-name>Frances</first-name><email-address>ada@summit.example</email-address></person>');
    expect(errors(upd.body)).toEqual(['Email address has already been taken']);
    const ok = await req('ada', 'PUT', `/people/${fran}.xml`, '<person><first-name>Frances</first-name><administrator>true</administrator></person>');
    expect(ok.status, ok.body).toBe(200);
    expect(text(ok.xml(), 'first-name')).toBe('Frances');
    expect(text(ok.xml(), 'administrator')).toBe('true');
    expect(errors((await req('ada', 'PUT', `/people/${a.f.person.cleo}.xml`, '<person><administrator>true</administrator></person>')).body)).toEqual(['Only people of the firm can be administrators']);
    // Fran is an administrator now: moving her to a client company alone is refused, with administrator false it is not.
    expect(errors((await req('ada', 'PUT', `/people/${fran}.xml`, `<person><company-id>${a.f.company.client}</company-id></person>`)).body)).toEqual(['Only people of the firm can be administrators']);
    expect((await req('ada', 'PUT', `/people/${fran}.xml`, `<person><company-id>${a.f.company.client}</company-id><administrator>false</administrator></person>`)).status).toBe(200);
    expect((await req('ada', 'PUT', '/people/999999.xml', '<person><first-name>X</first-name></person>')).status).toBe(404);
    expect((await req('cleo', 'PUT', '/people/999999.xml', '<person><password>whatever-123</password></person>')).status).toBe(403);
  });

  it('DELETE /people/{id}.xml deactivates: password and token refused at once (cached credential too), records keep their author', async () => {
    const fran = a.f.person.fran;
    const token = FIXTURE.people.find((p) => p.key === 'fran')!.token;
    const post = locId(await req('fran', 'POST', `/projects/${a.pid}/posts.xml`, '<post><title>By Fran</title><body>b</body></post>'));
    // Warm the credential cache with both forms.
    expect((await req('fran', 'GET', '/me.xml')).status).toBe(200);
    expect((await as(a.h, basic(token, 'X'), 'GET', '/me.xml')).status).toBe(200);
    for (const who of ['finn', 'cleo', 'fran'] as const) expect((await req(who, 'DELETE', `/people/${fran}.xml`)).status, who).toBe(403);
    expect((await req('ada', 'DELETE', `/people/${a.f.person.ada}.xml`)).status).toBe(422);
    const r = await req('ada', 'DELETE', `/people/${fran}.xml`);
    expect(r.status, r.body).toBe(200);
    expect((await req('fran', 'GET', '/me.xml')).status).toBe(401);
    expect((await as(a.h, basic(token, 'X'), 'GET', '/me.xml')).status).toBe(401);
    const p = await req('ada', 'GET', `/posts/${post}.xml`);
    expect(text(p.xml(), 'author-id')).toBe(String(fran));
    expect(text(p.xml(), 'author-name')).toBe('Fran Firm');
    // A deactivated person cannot be changed, invited or added to a project.
    expect((await req('ada', 'PUT', `/people/${fran}.xml`, '<person><password>another-one-1</password></person>')).status).toBe(422);
    expect((await req('ada', 'POST', `/people/${fran}/invitation.xml`)).status).toBe(422);
    expect((await req('ada', 'POST', `/projects/${a.f.project.crevasse}/people.xml`, `<person><id>${a.f.person.carl}</id></person>`)).status).toBe(201);
    expect((await req('ada', 'POST', `/projects/${a.pid}/people.xml`, `<person><id>${fran}</id></person>`)).status).toBe(422);
  });

  it('GET /people/deactivated.xml: administrators see who is deactivated (the People area marks them); others 403', async () => {
    const fran = a.f.person.fran;
    const empty = await req('ada', 'GET', '/people/deactivated.xml');
    expect(empty.status, empty.body).toBe(200);
    expect(empty.xml().name).toBe('people');
    expect(empty.xml().children).toEqual([]);
    expect((await req('ada', 'DELETE', `/people/${fran}.xml`)).status).toBe(200);
    const r = await req('ada', 'GET', '/people/deactivated.xml');
    expect(r.status, r.body).toBe(200);
    expect(r.xml().children.map((c) => Number(text(c, 'id')))).toEqual([fran]);
    expect(text(r.xml().children[0]!, 'last-name')).toBe('Firm');
    expect(r.body).not.toMatch(/password|scrypt/);
    // Still listed among everyone (D273), and the JSON twin.
    expect((await req('ada', 'GET', '/people.xml')).xml().children.map((c) => Number(text(c, 'id')))).toContain(fran);
    const j = await a.h.req('ada', 'GET', '/people/deactivated.json');
    expect(j.status).toBe(200);
    expect((j.json() as { id: number }[]).map((x) => x.id)).toEqual([fran]);
    for (const who of ['finn', 'cleo'] as const) {
      const x = await req(who, 'GET', '/people/deactivated.xml');
      expect(x.status, who).toBe(403);
      expect(errors(x.body)[0]).toMatch(/administrators/);
    }
    expect((await req('ada', 'POST', '/people/deactivated.xml')).status).toBe(405);
  });

  it('POST/PUT companies: administrators only, unique names, 201 + Location', async () => {
    for (const who of ['fran', 'cleo'] as const) expect((await req(who, 'POST', '/companies.xml', '<company><name>Peak Co</name></company>')).status).toBe(403);
    // can-see-private is the firm's alone (D276): asked for a client company, a clear 422.
    expect(errors((await req('ada', 'POST', '/companies.xml', '<company><name>Peak Co</name><can-see-private>true</can-see-private></company>')).body))
      .toEqual(['Can see private is only for your own firm: client companies never see private records']);
    const r = await req('ada', 'POST', '/companies.xml', '<company><name>Peak Co</name><can-see-private>false</can-see-private></company>');
    expect(r.status, r.body).toBe(201);
    const id = locId(r);
    expect(r.headers.location).toBe(`/companies/${id}.xml`);
    expect(text(r.xml(), 'can-see-private')).toBe('false');
    expect((await req('ada', 'PUT', `/companies/${a.f.company.firm}.xml`, '<company><can-see-private>false</can-see-private></company>')).status).toBe(422);
    // People of the new company are clients: they see no private record.
    const j = await req('ada', 'POST', '/people.xml', newPerson({ 'company-id': id, password: 'peak-person-1' }));
    expect(text(j.xml(), 'client-id')).toBe(String(id));
    expect(errors((await req('ada', 'POST', '/companies.xml', '<company><name>peak co</name></company>')).body)).toEqual(['Name has already been taken']);
    expect(errors((await req('ada', 'POST', '/companies.xml', '<company><can-see-private>maybe</can-see-private></company>')).body)).toEqual(['Can see private must be true or false']);
    expect((await req('fran', 'PUT', `/companies/${id}.xml`, '<company><name>X</name></company>')).status).toBe(403);
    const u = await req('ada', 'PUT', `/companies/${id}.xml`, '<company><name>Peak Company</name></company>');
    expect(text(u.xml(), 'name')).toBe('Peak Company');
    // A client cannot see another client company: 404 before 403.
    expect((await req('cleo', 'PUT', `/companies/${id}.xml`, '<company><name>X</name></company>')).status).toBe(404);
  });

  it('members: add and remove; visibility follows membership exactly; others 403', async () => {
    const base = a.f.project.basecamp, carl = a.f.person.carl;
    expect((await req('carl', 'GET', `/projects/${base}.xml`)).status).toBe(404);
    for (const who of ['fran', 'finn'] as const) expect((await req(who, 'POST', `/projects/${base}/people.xml`, `<person><id>${carl}</id></person>`)).status).toBe(403);
    expect((await req('cleo', 'POST', `/projects/${base}/people.xml`, `<person><id>${carl}</id></person>`)).status).toBe(404);
    expect(errors((await req('ada', 'POST', `/projects/${base}/people.xml`, '<person><id>999999</id></person>')).body)).toEqual(['Person is invalid']);
    expect(errors((await req('ada', 'POST', `/projects/${base}/people.xml`, '<person></person>')).body)).toEqual(["Person can't be blank"]);
    const add = await req('ada', 'POST', `/projects/${base}/people.xml`, `<person><id>${carl}</id></person>`);
    expect(add.status, add.body).toBe(201);
    expect(add.headers.location).toBe(`/people/${carl}.xml`);
    expect((await req('carl', 'GET', `/projects/${base}.xml`)).status).toBe(200);
    expect((await req('ada', 'GET', `/projects/${base}/people.xml`)).xml().children.map((c) => Number(text(c, 'id')))).toContain(carl);
    expect((await req('fran', 'DELETE', `/projects/${base}/people/${carl}.xml`)).status).toBe(403);
    expect((await req('ada', 'DELETE', `/projects/${base}/people/${carl}.xml`)).status).toBe(200);
    expect((await req('carl', 'GET', `/projects/${base}.xml`)).status).toBe(404);
    expect((await req('carl', 'GET', '/projects.xml')).xml().children).toEqual([]);
  });

  it('the change feed after membership changes through the routes: a resync of the project, then a delete of it', async () => {
    const base = a.f.project.basecamp, carl = a.f.person.carl;
    const feed = async (since: string) => (await req('carl', 'GET', `/sync/changes.json?since=${since}`)).json() as { cursor: string; changes: { resource: string; id: number; op: string }[] };
    const c0 = (await feed('0')).cursor;
    await req('ada', 'POST', `/projects/${base}/people.xml`, `<person><id>${carl}</id></person>`);
    const f1 = await feed(c0);
    expect(f1.changes.filter((c) => c.resource === 'project')).toEqual([expect.objectContaining({ id: base, op: 'resync' })]);
    await req('ada', 'DELETE', `/projects/${base}/people/${carl}.xml`);
    await req('fran', 'POST', `/projects/${base}/posts.xml`, '<post><title>Not for Carl</title><body>b</body></post>');
    const f2 = await feed(f1.cursor);
    expect(f2.changes).toEqual([expect.objectContaining({ resource: 'project', id: base, op: 'delete' })]);
  });

  it('invitations: created without a password, one use, the named person only, expired refused alike', async () => {
    const r = await req('ada', 'POST', '/people.xml', newPerson({ 'company-id': a.f.company.firm }));
    const id = locId(r);
    expect((await as(a.h, basic('nia', ''), 'GET', '/me.xml')).status).toBe(401);
    for (const who of ['fran', 'cleo'] as const) expect((await req(who, 'POST', `/people/${id}/invitation.xml`)).status).toBe(403);
    const inv = await req('ada', 'POST', `/people/${id}/invitation.xml`);
    expect(inv.status, inv.body).toBe(200);
    const token = text(inv.xml(), 'token')!;
    expect(token).toMatch(/^[\w-]{43}$/);
    const exp = Date.parse(text(inv.xml(), 'expires-at')!);
    expect(exp - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    // Stored hashed: the token is nowhere in the database.
    const rows = await a.h.store.all<{ token_hash: string }>('SELECT token_hash FROM invitations WHERE person_id = ?', [id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token);
    const accept = (user: string, tok: string, pw = 'chosen-passphrase') => as(a.h, null, 'POST', '/invitations/accept.xml', `<invitation><token>${tok}</token><user-name>${user}</user-name><password>${pw}</password></invitation>`);
    const refused = 'This invitation is not valid: ask an administrator for a new one';
    // Another person's name, an unknown token: the same 404.
    for (const [u, t] of [['fran', token], ['nia', 'x'.repeat(43)]]) {
      const w = await accept(u, t);
      expect(w.status).toBe(404);
      expect(errors(w.body)).toEqual([refused]);
    }
    expect(errors((await accept('nia', token, 'nia')).body)).toEqual(['Password is too short (minimum is 8 characters)', 'Password cannot be the user name']);
    const ok = await accept('nia', token);
    expect(ok.status, ok.body).toBe(200);
    expect((await as(a.h, basic('nia', 'chosen-passphrase'), 'GET', '/me.xml')).status).toBe(200);
    // Single use.
    expect((await accept('nia', token, 'another-passphrase')).status).toBe(404);
    expect((await as(a.h, basic('nia', 'another-passphrase'), 'GET', '/me.xml')).status).toBe(401);
    // Expired: refused alike (JSON twin).
    const t2 = text((await req('ada', 'POST', `/people/${id}/invitation.xml`)).xml(), 'token')!;
    await a.h.store.write((w) => w.run('UPDATE invitations SET expires_at = ? WHERE person_id = ? AND used_at IS NULL', ['2000-01-01T00:00:00Z', id]));
    const late = await as(a.h, null, 'POST', '/invitations/accept.json', JSON.stringify({ invitation: { token: t2, user_name: 'nia', password: 'third-passphrase' } }), { 'content-type': 'application/json' });
    expect(late.status).toBe(404);
    expect(JSON.parse(late.body)).toEqual({ errors: [refused] });
  });

  it('PUT /projects/{id}.xml archived: writes inside it are refused (403, nothing written), it stays readable, active again writes', async () => {
    const post = locId(await req('fran', 'POST', `/projects/${a.pid}/posts.xml`, '<post><title>Before</title><body>b</body></post>'));
    const list = locId(await req('fran', 'POST', `/projects/${a.pid}/todo_lists.xml`, '<todo-list><name>L</name></todo-list>'));
    expect((await req('fran', 'PUT', `/projects/${a.pid}.xml`, '<project><status>archived</status></project>')).status).toBe(403);
    const r = await req('ada', 'PUT', `/projects/${a.pid}.xml`, '<project><status>archived</status></project>');
    expect(r.status).toBe(200);
    expect(text(r.xml(), 'status')).toBe('archived');
    const refused = 'This project is archived: it is read-only (an administrator can make it active again)';
    for (const [m, url, body] of [
      ['POST', `/projects/${a.pid}/posts.xml`, '<post><title>After</title><body>b</body></post>'],
      ['PUT', `/posts/${post}.xml`, '<post><title>Changed</title></post>'],
      ['DELETE', `/posts/${post}.xml`, undefined],
      ['POST', `/posts/${post}/comments.xml`, '<comment><body>c</body></comment>'],
      ['POST', `/todo_lists/${list}/todo_items.xml`, '<todo-item><content>x</content></todo-item>'],
      ['POST', `/projects/${a.pid}/time_entries.xml`, `<time-entry><person-id>${a.f.person.ada}</person-id><date>2026-01-02</date><hours>1</hours></time-entry>`],
    ] as const) {
      const w = await req('ada', m, url, body);
      expect(w.status, `${m} ${url}: ${w.body}`).toBe(403);
      expect(errors(w.body)).toEqual([refused]);
    }
    expect(text((await req('cleo', 'GET', `/posts/${post}.xml`)).xml(), 'title')).toBe('Before');
    expect((await req('cleo', 'GET', `/projects/${a.pid}.xml`)).status).toBe(200);
    expect((await req('ada', 'PUT', `/projects/${a.pid}.xml`, '<project><status>active</status></project>')).status).toBe(200);
    expect((await req('ada', 'PUT', `/posts/${post}.xml`, '<post><title>Changed</title></post>')).status).toBe(200);
  });
});

describe('administration on a replica', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const req = (who: Who, method: string, url: string, body?: string) => a.h.req(who, method, url, body);

  it('is refused at once with 409 (people, companies and members are managed on the team server), and changes nothing', async () => {
    // A replica (or a disconnected one, whose outbox goes on recording): its people come from the remote.
    for (const key of ['url', 'was_url']) {
      await a.h.store.write(async (w) => { await w.run('DELETE FROM sync_state'); await w.run('INSERT INTO sync_state (key, value) VALUES (?, ?)', [key, 'http://team.example']); });
      const before = await a.h.store.all('SELECT id, user_name, active FROM people ORDER BY id');
      const tries: [string, string, string?][] = [
        ['POST', '/people.xml', newPerson({ 'company-id': a.f.company.firm, password: 'long-enough-1' })],
        ['PUT', `/people/${a.f.person.cleo}.xml`, '<person><first-name>Renamed</first-name></person>'],
        ['DELETE', `/people/${a.f.person.cleo}.xml`],
        ['POST', '/companies.xml', '<company><name>Another Co</name></company>'],
        ['POST', `/projects/${a.pid}/people.xml`, `<person><id>${a.f.person.cleo}</id></person>`],
        ['DELETE', `/projects/${a.pid}/people/${a.f.person.cleo}.xml`],
        ['POST', `/people/${a.f.person.cleo}/invitation.xml`],
        // Who is deactivated is known on the team server only (the replica's copy of a person does not say it).
        ['GET', '/people/deactivated.xml'],
      ];
      for (const [method, url, body] of tries) {
        const r = await req('ada', method, url, body);
        expect(r.status, `${key}: ${method} ${url}`).toBe(409);
        expect(errors(r.body).join(' ')).toMatch(/team server/);
      }
      expect(await a.h.store.all('SELECT id, user_name, active FROM people ORDER BY id')).toEqual(before);
    }
  });
});

describe('administration on a replica of a team server that takes it (D338)', () => {
  let a: Account;
  freshAccount((x) => { a = x; });
  const req = (who: Who, method: string, url: string, body?: string) => a.h.req(who, method, url, body);
  const replicaOfAdmin = () => a.h.store.write(async (w) => {
    await w.run('DELETE FROM sync_state');
    for (const [k, v] of [['url', 'http://team.example'], ['remote_kind', 'admin']]) await w.run('INSERT INTO sync_state (key, value) VALUES (?, ?)', [k, v]);
  });

  it('without its sync running (the command line on its data) refuses at once, and says where to go', async () => {
    await replicaOfAdmin();
    const before = await a.h.store.all('SELECT id, user_name, active FROM people ORDER BY id');
    const r = await req('ada', 'POST', '/people.xml', newPerson({ 'company-id': a.f.company.firm, password: 'long-enough-1' }));
    expect(r.status).toBe(409);
    expect(errors(r.body).join(' ')).toContain('not syncing now');
    expect(await a.h.store.all('SELECT id, user_name, active FROM people ORDER BY id')).toEqual(before);
  });

  it('a non-administrator gets 403 before anything else; invitations stay the team server\'s (409)', async () => {
    await replicaOfAdmin();
    expect((await req('fran', 'POST', '/companies.xml', '<company><name>X Co</name></company>')).status).toBe(403);
    expect((await req('fran', 'DELETE', `/people/${a.f.person.cleo}.xml`)).status).toBe(403);
    const inv = await req('ada', 'POST', `/people/${a.f.person.cleo}/invitation.xml`);
    expect(inv.status).toBe(409);
    expect(errors(inv.body).join(' ')).toContain('invitations and the list of deactivated people are on the team server');
  });
});

describe('administration and the log', () => {
  it('at the most verbose level, no password, hash or invitation token reaches the log', async () => {
    const lines: string[] = [];
    const store = await seededStore();
    const app = await buildApp({ store, logLevel: 'debug', logStream: { write: (l) => { lines.push(l); } } });
    await app.ready();
    try {
      const ada = basic('ada', 'ada-pass-1');
      const send = (method: string, url: string, payload?: string, auth: string | null = ada) =>
        app.inject({ method: method as 'POST', url, payload, headers: { host: '127.0.0.1', ...(auth ? { authorization: auth } : {}) } });
      const made = await send('POST', '/people.xml', newPerson({ 'company-id': 1, password: 'secret-passphrase-1' }));
      expect(made.statusCode, made.body).toBe(201);
      await send('POST', '/people.xml', newPerson({ 'user-name': 'x2', 'email-address': 'x2@x.example', 'company-id': 1, password: 'x2' }));
      const id = Number(/(\d+)\.xml$/.exec(String(made.headers.location))![1]);
      const token = /<token>([^<]+)</.exec((await send('POST', `/people/${id}/invitation.xml`)).body)![1];
      await send('POST', '/invitations/accept.xml', `<invitation><token>${token}</token><user-name>nia</user-name><password>second-passphrase</password></invitation>`, null);
      const log = lines.join('');
      expect(log).toContain('/people.xml'); // requests are logged at this level
      for (const secret of ['secret-passphrase-1', 'second-passphrase', token, 'scrypt$']) expect(log).not.toContain(secret);
    } finally {
      await app.close();
      await store.close();
    }
  });
});

describe.skipIf(process.env.BIVOUAC_TEST_STORE !== 'postgres' || pgSkipReason())('administration across two processes on one PostgreSQL', () => {
  it('a deactivation in one process refuses the cached credential in the other at once', async () => {
    const url = await freshDatabase();
    const s1 = await PgStore.open(url);
    await importSeed(s1, FIXTURE);
    const s2 = await PgStore.open(url);
    const one = await harnessOver(s1), two = await harnessOver(s2);
    try {
      const token = FIXTURE.people.find((p) => p.key === 'fran')!.token;
      expect((await as(two, basic(token, 'X'), 'GET', '/me.xml')).status).toBe(200);
      expect((await two.req('fran', 'GET', '/me.xml')).status).toBe(200);
      const fran = Number(text((await two.req('fran', 'GET', '/me.xml')).xml(), 'id'));
      expect((await one.req('ada', 'DELETE', `/people/${fran}.xml`)).status).toBe(200);
      expect((await as(two, basic(token, 'X'), 'GET', '/me.xml')).status).toBe(401);
      expect((await two.req('fran', 'GET', '/me.xml')).status).toBe(401);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe.skipIf(process.env.BIVOUAC_TEST_STORE === 'postgres')('the administration commands (bivouac people|projects|members)', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const run = (args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((done, fail) => {
      const child = spawn(process.execPath, [join(root, 'electron', 'cli.ts'), ...args], { cwd: root, env: { ...process.env, BIVOUAC_PASSWORD: undefined, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '', stderr = '';
      child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
      child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
      child.on('error', fail);
      child.on('close', (code) => done({ code, stdout, stderr }));
      child.stdin.end(input ?? '');
    });

  it('adds, updates and deactivates people, adds, renames and archives projects, adds and removes members (--json)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-admin-cli-'));
    try {
      const d = ['--data-dir', dir];
      expect((await run(['import', join(root, 'tests', 'fixtures', 'account.json'), ...d])).code).toBe(0);
      const add = await run(['people', 'add', '--first-name', 'Cli', '--last-name', 'Person', '--user', 'cli', '--email', 'cli@summit.example', '--company', '1', '--json', ...d], {}, 'cli-passphrase\n');
      expect(add.code, add.stderr).toBe(0);
      const person = JSON.parse(add.stdout) as { id: number; user_name: string };
      expect(person.user_name).toBe('cli');
      expect(add.stdout + add.stderr).not.toContain('cli-passphrase');
      const dup = await run(['people', 'add', '--first-name', 'X', '--last-name', 'Y', '--user', 'cli', '--email', 'x@y.example', '--company', '1', '--json', ...d], { BIVOUAC_PASSWORD: 'whatever-long' });
      expect(dup.code).toBe(1);
      expect(JSON.parse(dup.stdout)).toEqual({ errors: ['User name has already been taken'] });
      const inv = await run(['people', 'add', '--first-name', 'Inv', '--last-name', 'Ited', '--user', 'inv', '--email', 'inv@summit.example', '--company', '1', '--invite', '--json', ...d]);
      expect(inv.code, inv.stderr).toBe(0);
      expect((JSON.parse(inv.stdout) as { invitation: { token: string } }).invitation.token).toMatch(/^[\w-]{43}$/);
      const proj = JSON.parse((await run(['projects', 'add', 'From the shell', '--json', ...d])).stdout) as { id: number; name: string };
      expect(proj.name).toBe('From the shell');
      expect((await run(['members', 'add', String(proj.id), String(person.id), '--json', ...d])).code).toBe(0);
      expect(JSON.parse((await run(['projects', 'rename', String(proj.id), 'Renamed', '--json', ...d])).stdout)).toMatchObject({ name: 'Renamed' });
      expect((await run(['people', 'update', String(person.id), '--first-name', 'Clio', ...d])).stdout).toBe(`updated person ${person.id} (cli)\n`);

      const h = await harnessOver(new SqliteStore(join(dir, DB_FILE)));
      try {
        const cli = basic('cli', 'cli-passphrase');
        expect((await as(h, cli, 'GET', '/projects.xml')).xml().children.map((c) => text(c, 'name'))).toEqual(['Renamed']);
        expect(text((await as(h, cli, 'GET', '/me.xml')).xml(), 'first-name')).toBe('Clio');
      } finally { await h.close(); }
      expect(JSON.parse((await run(['projects', 'archive', String(proj.id), '--json', ...d])).stdout)).toMatchObject({ status: 'archived' });
      expect((await run(['members', 'remove', String(proj.id), String(person.id), ...d])).code).toBe(0);
      expect((await run(['people', 'deactivate', String(person.id), '--json', ...d])).stdout).toBe(`${JSON.stringify({ id: person.id, active: false })}\n`);
      const bad = await run(['members', 'add', 'x', '1', ...d]);
      expect([bad.code, bad.stderr]).toEqual([2, 'bivouac: PROJECT_ID must be a number (got "x")\n']);
      const h2 = await harnessOver(new SqliteStore(join(dir, DB_FILE)));
      try {
        expect((await as(h2, basic('cli', 'cli-passphrase'), 'GET', '/me.xml')).status).toBe(401);
        expect((await as(h2, basic('ada', 'ada-pass-1'), 'GET', `/projects/${proj.id}/people.xml`)).xml().children.map((c) => text(c, 'user-name'))).toEqual(['ada']);
      } finally { await h2.close(); }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
