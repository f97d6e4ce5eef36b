// Brute-force protection (issue #7, "A server people can put on a network") and the per-person
// request rate. Time is a fake clock; the slow-down is observed through the sleep it asks for.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../electron/http/app.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { FIXTURE } from '../../support/helpers.ts';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const ADA = basic('ada', 'ada-pass-1');

interface Env { store: SqliteStore; app: FastifyInstance; clock: { t: number }; sleeps: number[] }

async function env(extra: Record<string, unknown> = {}, store?: SqliteStore): Promise<Env> {
  if (!store) {
    store = new SqliteStore(':memory:');
    await importSeed(store, FIXTURE);
  }
  const clock = { t: 1_800_000_000_000 };
  const sleeps: number[] = [];
  const app = await buildApp({
    store, responseCacheBytes: 0,
    authGuard: { now: () => clock.t, sleep: async (ms: number) => { sleeps.push(ms); } },
    ...extra,
  });
  await app.ready();
  return { store, app, clock, sleeps };
}

const get = (e: Env, auth: string, addr: string, url = '/me.xml') =>
  e.app.inject({ method: 'GET', url, remoteAddress: addr, headers: { host: '127.0.0.1', authorization: auth } });

describe('brute-force protection', () => {
  let e: Env;
  beforeEach(async () => { e = await env(); });
  afterEach(async () => { await e.app.close(); await e.store.close(); });

  it('slows an address down, then answers 429 with Retry-After; another address with the right password gets in', async () => {
    expect((await get(e, ADA, '198.51.100.1')).statusCode).toBe(200); // ada's own machine, before
    const statuses: number[] = [];
    // Different user names: only the address is counted against.
    for (let i = 0; i < 20; i++) statuses.push((await get(e, basic(`user-${i}`, 'guess'), '203.0.113.9')).statusCode);
    expect(statuses.every((s) => s === 401)).toBe(true);
    // Slowed down from the 6th failure on, more and more.
    expect(e.sleeps.length).toBeGreaterThan(10);
    expect(e.sleeps[e.sleeps.length - 1]).toBeGreaterThan(e.sleeps[0]);
    const blocked = await get(e, basic('ada', 'guess-x'), '203.0.113.9');
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(blocked.body).toContain('<errors>');
    // The right password from the blocked address is refused too (no oracle)...
    expect((await get(e, ADA, '203.0.113.9')).statusCode).toBe(429);
    // ...but ada, from her own machine, where she signed in before, is not locked out
    // (`basic` in lower case: another header, so the credential cache does not answer).
    expect((await get(e, ADA.replace('Basic', 'basic'), '198.51.100.1')).statusCode).toBe(200);
    // Nor is anyone else from another address.
    expect((await get(e, basic('fran', 'fran-pass-2'), '198.51.100.2')).statusCode).toBe(200);
    // The bucket drains: after Retry-After the address may try again.
    e.clock.t += Number(blocked.headers['retry-after']) * 1000;
    expect((await get(e, basic('finn', 'guess-y'), '203.0.113.9')).statusCode).toBe(401);
  });

  it('many addresses guessing one user name: 429 for that name from new addresses only, and not for long', async () => {
    // ada signed in from her machine before the attack.
    expect((await get(e, ADA, '198.51.100.1')).statusCode).toBe(200);
    for (let i = 0; i < 10; i++) expect((await get(e, basic('ada', `g${i}`), `203.0.113.${i + 10}`)).statusCode).toBe(401);
    const fromNew = await get(e, basic('ada', 'g-next'), '203.0.113.99');
    expect(fromNew.statusCode).toBe(429);
    expect(fromNew.body).toContain('<errors>');
    // Her usual machine is not locked out (`basic`: a new header, so the credential cache does not answer).
    expect((await get(e, ADA.replace('Basic', 'basic'), '198.51.100.1')).statusCode).toBe(200);
    // Other user names are unaffected.
    expect((await get(e, basic('fran', 'fran-pass-2'), '203.0.113.99')).statusCode).toBe(200);
    // A new machine waits at most the Retry-After (one step of the user bucket).
    const wait = Number(fromNew.headers['retry-after']);
    expect(wait).toBeLessThanOrEqual(30);
    e.clock.t += wait * 1000;
    expect((await get(e, ADA, '192.0.2.50')).statusCode).toBe(200);
  });

  it('counts through the database: a second process on the same file sees the failures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-bf-'));
    try {
      const file = join(dir, 'db.sqlite');
      const s1 = new SqliteStore(file);
      await importSeed(s1, FIXTURE);
      const s2 = new SqliteStore(file);
      const one = await env({}, s1), two = await env({}, s2);
      two.clock.t = one.clock.t;
      for (let i = 0; i < 20; i++) await get(i % 2 ? one : two, basic('fran', `x${i}`), '203.0.113.7');
      expect((await get(one, basic('fran', 'x'), '203.0.113.7')).statusCode).toBe(429);
      expect((await get(two, basic('fran', 'x'), '203.0.113.7')).statusCode).toBe(429);
      await one.app.close(); await two.app.close(); await s1.close(); await s2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is off unless asked for (the local service: the contract has no rate limit)', async () => {
    const store = new SqliteStore(':memory:');
    await importSeed(store, FIXTURE);
    const app = await buildApp({ store });
    for (let i = 0; i < 30; i++) {
      const r = await app.inject({ method: 'GET', url: '/me.xml', headers: { host: '127.0.0.1', authorization: basic('ada', `g${i}`) } });
      expect(r.statusCode).toBe(401);
    }
    await app.close();
    await store.close();
  });

  it('behind a trusted proxy, counts the forwarded client address', async () => {
    const p = await env({ trustProxy: 'loopback', allowedHosts: ['team.example'] });
    const via = (addr: string, auth: string) => p.app.inject({
      method: 'GET', url: '/me.xml', remoteAddress: '127.0.0.1',
      headers: { host: '127.0.0.1:8080', 'x-forwarded-for': addr, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'team.example', authorization: auth },
    });
    for (let i = 0; i < 20; i++) expect((await via('203.0.113.5', basic(`u${i}`, 'g'))).statusCode).toBe(401);
    expect((await via('203.0.113.5', basic('finn', 'g'))).statusCode).toBe(429);
    // Another client behind the same proxy is another address.
    expect((await via('203.0.113.6', basic('cleo', 'cleo-pass-4'))).statusCode).toBe(200);
    // The forwarded Host is the one checked.
    const evil = await p.app.inject({ method: 'GET', url: '/me.xml', remoteAddress: '127.0.0.1',
      headers: { host: '127.0.0.1:8080', 'x-forwarded-host': 'evil.example', authorization: ADA } });
    expect(evil.statusCode).toBe(403);
    await p.app.close(); await p.store.close();
    // Without --trust-proxy the header is ignored: the socket's address is counted.
    for (let i = 0; i < 20; i++) await get(e, basic(`u${i}`, 'g'), '127.0.0.1').then((r) => expect(r.statusCode).toBe(401));
    const spoof = await e.app.inject({ method: 'GET', url: '/me.xml', remoteAddress: '127.0.0.1',
      headers: { host: '127.0.0.1', 'x-forwarded-for': '192.0.2.1', authorization: basic('finn', 'nope') } });
    expect(spoof.statusCode).toBe(429);
  });
});

describe('per-person request rate', () => {
  it('admits a burst, then 429 with Retry-After for that person only; shared across processes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-rate-'));
    try {
      const file = join(dir, 'db.sqlite');
      const s1 = new SqliteStore(file);
      await importSeed(s1, FIXTURE);
      const s2 = new SqliteStore(file);
      const clock = { t: 1_800_000_000_000 };
      const rate = { perMinute: 60, burst: 5, now: () => clock.t };
      const one = await buildApp({ store: s1, rateLimit: rate, responseCacheBytes: 0 });
      const two = await buildApp({ store: s2, rateLimit: rate, responseCacheBytes: 0 });
      const req = (app: FastifyInstance, auth = ADA) => app.inject({ method: 'GET', url: '/projects.xml', headers: { host: '127.0.0.1', authorization: auth } });
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) codes.push((await req(i % 2 ? one : two)).statusCode);
      expect(codes).toEqual([200, 200, 200, 200, 200]);
      const over = await req(one);
      expect(over.statusCode).toBe(429);
      expect(over.headers['retry-after']).toBe('1');
      expect(over.body).toContain('<errors>');
      expect((await req(two)).statusCode).toBe(429);
      expect((await req(two, basic('fran', 'fran-pass-2'))).statusCode).toBe(200);
      clock.t += 1000; // one request per second refills
      expect((await req(two)).statusCode).toBe(200);
      expect((await req(one)).statusCode).toBe(429);
      await one.close(); await two.close(); await s1.close(); await s2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
