import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Authenticator, decodeBasic, hashPassword, newToken, verifyPassword } from '../../../electron/service/auth.ts';
import { harness, type Harness } from '../../support/helpers.ts';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('passwords and tokens', () => {
  it('hashes with scrypt and verifies', async () => {
    const h = await hashPassword('s3cret');
    expect(h).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifyPassword('s3cret', h)).toBe(true);
    expect(await verifyPassword('S3cret', h)).toBe(false);
    expect(await verifyPassword('x', null)).toBe(false);
    expect(newToken()).toMatch(/^[0-9a-f]{40}$/);
  });
  it('decodes Basic headers, case-insensitive scheme', () => {
    expect(decodeBasic(basic('a', 'b:c'))).toEqual({ user: 'a', pass: 'b:c' });
    expect(decodeBasic(`basic ${Buffer.from('tok:').toString('base64')}`)).toEqual({ user: 'tok', pass: '' });
    expect(decodeBasic('Bearer x')).toBeNull();
    expect(decodeBasic(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeNull();
  });
});

describe('Authenticator', () => {
  let h: Harness;
  beforeEach(async () => { h = await harness(); });
  afterEach(async () => { await h.close(); });

  it('accepts user:password then token:any, refuses the rest', async () => {
    const a = new Authenticator(h.store);
    expect((await a.authenticate(basic('fran', 'fran-pass-2')))!.name).toBe('Fran Firm');
    expect((await a.authenticate(basic('5aac8c4132687845b7119d564bfd9980c282a594', '')))!.name).toBe('Fran Firm');
    expect((await a.authenticate(basic('5aac8c4132687845b7119d564bfd9980c282a594', 'X')))!.firm).toBe(true);
    expect(await a.authenticate(basic('fran', 'wrong'))).toBeNull();
    expect(await a.authenticate(basic('Fran', 'fran-pass-2'))).toBeNull();
    expect(await a.authenticate(undefined)).toBeNull();
    const cleo = (await a.authenticate(basic('cleo', 'cleo-pass-4')))!;
    expect([cleo.firm, cleo.admin]).toEqual([false, false]);
    expect((await a.authenticate(basic('ada', 'ada-pass-1')))!.admin).toBe(true);
  });

  it('remembers the digest of a connection\'s last header only for that exact header (D212)', async () => {
    const a = new Authenticator(h.store);
    const conn = {}, other = {};
    expect((await a.authenticate(basic('fran', 'fran-pass-2'), undefined, '', conn))!.name).toBe('Fran Firm');
    expect((await a.authenticate(basic('fran', 'fran-pass-2'), undefined, '', conn))!.name).toBe('Fran Firm');
    // The same connection switching credentials: the new ones are checked, whatever it sent before.
    expect((await a.authenticate(basic('cleo', 'cleo-pass-4'), undefined, '', conn))!.name).not.toBe('Fran Firm');
    expect(await a.authenticate(basic('fran', 'wrong'), undefined, '', conn)).toBeNull();
    expect(await a.authenticate(basic('fran', 'fran-pass-2\0'), undefined, '', conn)).toBeNull();
    expect((await a.authenticate(basic('fran', 'fran-pass-2'), undefined, '', other))!.name).toBe('Fran Firm');
    expect(await a.authenticate(undefined, undefined, '', conn)).toBeNull();
  });

  it('caches verified credentials and drops them when the password or token changes', async () => {
    const a = new Authenticator(h.store);
    const t0 = performance.now();
    await a.authenticate(basic('fran', 'fran-pass-2'));
    const cold = performance.now() - t0;
    const t1 = performance.now();
    for (let i = 0; i < 20; i++) await a.authenticate(basic('fran', 'fran-pass-2'));
    const warm = (performance.now() - t1) / 20;
    expect(warm * 10).toBeLessThan(cold);
    const hash = await hashPassword('new-pass');
    await h.store.write((w) => w.update('people', 2, { password_hash: hash }));
    expect(await a.authenticate(basic('fran', 'fran-pass-2'))).toBeNull();
    expect((await a.authenticate(basic('fran', 'new-pass')))!.id).toBe(2);
    await h.store.write((w) => w.update('people', 2, { token: 'f'.repeat(40) }));
    expect(await a.authenticate(basic('5aac8c4132687845b7119d564bfd9980c282a594', ''))).toBeNull();
  });

  it('skips the person lookup while nothing changed, and re-checks after any write', async () => {
    const a = new Authenticator(h.store);
    const hdr = basic('fran', 'fran-pass-2');
    const t1 = await h.store.changeToken();
    expect((await a.authenticate(hdr, t1))!.id).toBe(2);
    let reads = 0;
    const get = h.store.get.bind(h.store);
    h.store.get = (async (...args: Parameters<typeof get>) => { reads++; return get(...args); }) as typeof h.store.get;
    expect((await a.authenticate(hdr, t1))!.id).toBe(2);
    expect(reads).toBe(0);
    const hash = await hashPassword('other');
    await h.store.write((w) => w.update('people', 2, { password_hash: hash }));
    const t2 = await h.store.changeToken();
    expect(t2).not.toBe(t1);
    expect(await a.authenticate(hdr, t2)).toBeNull();
    expect(reads).toBeGreaterThan(0);
  });

  it('verifies one password once for concurrent requests with the same header (D130)', async () => {
    // Ten connections that open with the same credentials used to run ten scrypt derivations at once:
    // 16 MiB each on the thread pool, which glibc keeps per thread after they are freed.
    let calls = 0;
    const a = new Authenticator(h.store, 1024, { verify: async (pw, stored) => { calls++; return verifyPassword(pw, stored); } });
    const hdr = basic('fran', 'fran-pass-2');
    const got = await Promise.all(Array.from({ length: 10 }, () => a.authenticate(hdr, 't')));
    expect(got.map((c) => c?.id)).toEqual(Array(10).fill(2));
    expect(calls).toBe(1);
    // a wrong password is not shared with a right one, and a failure is not remembered
    const bad = await Promise.all([a.authenticate(basic('fran', 'nope'), 't'), a.authenticate(basic('fran', 'nope'), 't')]);
    expect(bad).toEqual([null, null]);
    expect(calls).toBe(2);
    expect(await a.authenticate(basic('fran', 'nope'), 't')).toBeNull();
    expect(calls).toBe(3);
  });

  it('keeps the cache bounded', async () => {
    const a = new Authenticator(h.store, 2);
    for (const [u, p] of [['ada', 'ada-pass-1'], ['fran', 'fran-pass-2'], ['finn', 'finn-pass-3']]) await a.authenticate(basic(u, p));
    expect((a as unknown as { cache: Map<string, unknown> }).cache.size).toBe(2);
  });
});

describe('HTTP auth (§3)', () => {
  let h: Harness;
  beforeEach(async () => { h = await harness(); });
  afterEach(async () => { await h.close(); });

  it('401 with WWW-Authenticate and <errors> before anything else, 404 after', async () => {
    const r = await h.req(null, 'GET', '/no/such/route.xml');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Basic realm="Bivouac"');
    expect(r.xml().name).toBe('errors');
    expect((await h.req('fran', 'GET', '/no/such/route.xml')).status).toBe(404);
    expect((await h.req(null, 'GET', '/health')).status).toBe(200);
  });

  it('refuses a foreign Host (DNS rebinding) and a cross-origin page', async () => {
    expect((await h.req('fran', 'GET', '/me.xml', undefined, { host: 'evil.example:4817' })).status).toBe(403);
    expect((await h.req('fran', 'GET', '/me.xml', undefined, { host: 'localhost:4817' })).status).toBe(200);
    expect((await h.req('fran', 'GET', '/me.xml', undefined, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await h.req('fran', 'GET', '/me.xml', undefined, { host: '127.0.0.1:4817', origin: 'http://127.0.0.1:4817' })).status).toBe(200);
    expect((await h.req('fran', 'GET', '/me.xml')).headers['access-control-allow-origin']).toBeUndefined();
  });
});
