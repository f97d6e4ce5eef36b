// The route layer (§2.1, §2.2, §2.4, §4.1, §8.14): methods, paths, formats, headers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prefersJson } from '../../../electron/http/api.ts';
import { hostAllowed } from '../../../electron/http/app.ts';
import { fx, harness, type Harness } from '../../support/helpers.ts';

let h: Harness;
let alpha = 0;
beforeAll(async () => { h = await harness(); alpha = (await fx(h)).project.alpha; });
afterAll(async () => { await h.close(); });

describe('route layer', () => {
  it('405 with Allow for a method a resource route does not take; action routes take four', async () => {
    const r = await h.req('fran', 'PATCH', `/projects/${alpha}.xml`, '<x/>');
    expect([r.status, r.headers.allow]).toEqual([405, 'GET, PUT']);
    expect(r.xml().name).toBe('errors');
    const a = await h.req('fran', 'PATCH', '/project/list');
    expect([a.status, a.headers.allow]).toEqual([405, 'GET, POST, PUT, DELETE']);
    for (const m of ['GET', 'POST', 'PUT', 'DELETE']) expect((await h.req('fran', m, '/project/list')).status).toBe(200);
  });

  it('answers HEAD like GET without a body, OPTIONS with 405, never a 5xx', async () => {
    const head = await h.req('fran', 'HEAD', '/projects.xml');
    expect([head.status, head.body]).toEqual([200, '']);
    expect((await h.req('fran', 'OPTIONS', '/projects.xml')).status).toBe(405);
  });

  it('collapses leading slashes and nothing else', async () => {
    expect((await h.req('fran', 'GET', `//projects/${alpha}.xml`)).status).toBe(200);
    expect((await h.req('fran', 'GET', `///projects/${alpha}.xml`)).status).toBe(200);
    expect((await h.req('fran', 'GET', '/projects.xml/')).status).toBe(404);
    expect((await h.req('fran', 'GET', '/Projects.xml')).status).toBe(404);
    expect((await h.req('fran', 'GET', '/projects')).status).toBe(404);
    for (const bad of ['abc', '-1', '0', '1,2', '9007199254740993']) expect((await h.req('fran', 'GET', `/projects/${bad}.xml`)).status).toBe(404);
  });

  it('ignores Accept and Content-Type for XML, and carries a Status header', async () => {
    for (const accept of ['*/*', 'text/html', 'application/xml']) {
      const r = await h.req('fran', 'GET', '/projects.xml', undefined, { accept });
      expect(r.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(r.headers.status).toBe('200');
    }
    expect((await h.req(null, 'GET', '/projects.xml')).headers.status).toBe('401');
  });

  it('negotiates JSON only when the client prefers it', () => {
    expect(prefersJson('application/json')).toBe(true);
    expect(prefersJson('application/xml;q=0.5, application/json')).toBe(true);
    expect(prefersJson('application/json;q=0.4, text/xml')).toBe(false);
    expect(prefersJson('*/*')).toBe(false);
    expect(prefersJson(undefined)).toBe(false);
  });

  it('JSON errors and JSON 404s', async () => {
    const r = await h.req('fran', 'GET', '/projects/999999.json');
    expect([r.status, r.json()]).toEqual([404, { errors: ['Project not found'] }]);
    expect((await h.req(null, 'GET', '/projects.json')).status).toBe(401);
  });

  it('accepts loopback Host names on any port or none, and other names only from --allow-host', () => {
    expect(hostAllowed('127.0.0.1:4817', [])).toBe(true);
    expect(hostAllowed('LOCALHOST', [])).toBe(true);
    expect(hostAllowed('[::1]:4817', [])).toBe(true);
    expect(hostAllowed('attacker.example', [])).toBe(false);
    expect(hostAllowed('bivouac.lan:80', ['bivouac.lan'])).toBe(true);
    expect(hostAllowed(undefined, [])).toBe(false);
    // Whatever the bound address, a name is answered only when given (--allow-host).
    expect(hostAllowed('team.example', [])).toBe(false);
    expect(hostAllowed('team.example:443', ['team.example'])).toBe(true);
    expect(hostAllowed('10.0.0.7', [])).toBe(false);
  });
});
