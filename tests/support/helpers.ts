// Test harness: the real app (Fastify inject, no socket) over a store seeded with the project's
// fixture: in-memory SQLite by default (in a file with BIVOUAC_TEST_SQLITE=file: the `file` Vitest
// project), or a fresh PostgreSQL database (a copy of a template seeded once per worker) with
// `harness({ engine: 'postgres' })` or BIVOUAC_TEST_STORE=postgres (the `pg` Vitest project runs the
// resource tests that way). Every test gets a fresh account.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect } from 'vitest';
import { buildApp } from '../../electron/http/app.ts';
import { SqliteStore } from '../../electron/store/sqlite.ts';
import { PgStore } from '../../electron/store/postgres.ts';
import type { Store, Writer } from '../../electron/store/types.ts';
import { dbName, freshDatabase } from './pg.ts';
import { importSeed } from '../../electron/service/account.ts';
import { parseXml, type XNode } from '../../shared/codec/in.ts';

export const FIXTURE_PATH = fileURLToPath(new URL('../fixtures/account.json', import.meta.url));
export const FIXTURE = JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as {
  people: { key: string; 'user-name': string; password: string; token: string }[];
};

export type Who = 'ada' | 'fran' | 'finn' | 'cleo' | 'carl';

export interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The parsed XML body (throws if not XML). */
  xml(): XNode;
  json(): unknown;
}

export interface Harness {
  app: FastifyInstance;
  store: Store;
  engine: Engine;
  req(who: Who | null, method: string, url: string, body?: string, headers?: Record<string, string>): Promise<Res>;
  close(): Promise<void>;
}

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

export type Engine = 'sqlite' | 'postgres';
export const defaultEngine = (): Engine => (process.env.BIVOUAC_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite');

/** A seeded PostgreSQL database to copy (one per worker). */
let template: Promise<string> | undefined;
async function seededPg(fixture: typeof FIXTURE): Promise<PgStore> {
  if (fixture !== FIXTURE) {
    const s = await PgStore.open(await freshDatabase(), { max: 4 });
    await importSeed(s, fixture);
    return s;
  }
  template ??= (async () => {
    const url = await freshDatabase();
    const s = await PgStore.open(url);
    await importSeed(s, FIXTURE);
    await s.close();
    return dbName(url);
  })();
  return PgStore.open(await freshDatabase(await template), { max: 4 });
}

/** SQLite in a file of a directory of its own, removed when the store closes (BIVOUAC_TEST_SQLITE=file: project `file`). */
export function sqliteInFile(): SqliteStore {
  const dir = mkdtempSync(join(tmpdir(), 'bv-file-'));
  const store = new SqliteStore(join(dir, 'bivouac.sqlite'));
  const close = store.close.bind(store);
  store.close = async () => {
    try { await close(); } finally { rmSync(dir, { recursive: true, force: true }); }
  };
  return store;
}

/** A fresh seeded store of an engine. */
export async function seededStore(engine: Engine = defaultEngine(), fixture: typeof FIXTURE = FIXTURE): Promise<Store> {
  if (engine === 'postgres') return seededPg(fixture);
  const store = process.env.BIVOUAC_TEST_SQLITE === 'file' ? sqliteInFile() : new SqliteStore(':memory:');
  await importSeed(store, fixture);
  return store;
}

/**
 * The app over a fresh store seeded with `fixture` (default: tests/fixtures/account.json), on the
 * default engine or `engine`.
 */
export async function harness(fixture: typeof FIXTURE | { engine?: Engine; fixture?: typeof FIXTURE } = FIXTURE): Promise<Harness> {
  const o: { engine?: Engine; fixture?: typeof FIXTURE } = 'people' in fixture ? { fixture } : fixture;
  const engine = o.engine ?? defaultEngine();
  return harnessOver(await seededStore(engine, o.fixture ?? FIXTURE), engine, o.fixture ?? FIXTURE);
}

/** The real app over a given (seeded) store: e.g. a second "process" on the same PostgreSQL database. */
export async function harnessOver(store: Store, engine: Engine = store.dialect, fixture: typeof FIXTURE = FIXTURE): Promise<Harness> {
  const app = await buildApp({ store });
  await app.ready();
  const creds = new Map(fixture.people.map((p) => [p.key, basic(p['user-name'], p.password)]));
  return {
    app, store, engine,
    async req(who, method, url, body, headers = {}) {
      const r = await app.inject({
        method: method as 'GET', url, payload: body,
        headers: { host: '127.0.0.1', ...(who ? { authorization: creds.get(who)! } : {}), ...headers },
      });
      return {
        status: r.statusCode, headers: r.headers as Res['headers'], body: r.body,
        xml: () => { const n = parseXml(r.body); if (!n) throw new Error('empty body'); return n; },
        json: () => JSON.parse(r.body),
      };
    },
    async close() { await app.close(); await store.close(); },
  };
}

/** Text of a child element. */
export const text = (n: XNode, name: string): string | undefined => n.children.find((c) => c.name === name)?.text;
/** Ids of the records in a collection. */
export const ids = (n: XNode): number[] => n.children.map((c) => Number(text(c, 'id')));
/** Id from a 201's Location header. */
export const locId = (r: Res): number => Number(/(\d+)(?:\.xml)?$/.exec(String(r.headers.location))![1]);

/** Ids of the fixture's records, found by listing. */
export async function fx(h: Harness): Promise<{ project: Record<string, number>; person: Record<string, number>; company: Record<string, number> }> {
  const byName = (n: XNode) => Object.fromEntries(n.children.map((c) => [text(c, 'name')!, Number(text(c, 'id'))]));
  const projects = byName((await h.req('ada', 'GET', '/projects.xml')).xml());
  const companies = byName((await h.req('ada', 'GET', '/companies.xml')).xml());
  const people = (await h.req('ada', 'GET', '/people.xml')).xml();
  const person = Object.fromEntries(people.children.map((c) => [text(c, 'user-name')!, Number(text(c, 'id'))]));
  return {
    project: { alpha: projects['Alpha Ascent'], basecamp: projects['Base Camp Logistics'], crevasse: projects['Crevasse Survey'] },
    company: { firm: companies['Summit Firm Ltd'], client: companies['Valley Client Co'] },
    person,
  };
}

export interface Account { h: Harness; f: Awaited<ReturnType<typeof fx>>; pid: number }

/**
 * A fresh account for every test of the file: registers the beforeEach/afterEach pair and hands
 * the harness, the fixture ids and the `alpha` project id to `use` before each test.
 */
export function freshAccount(use: (a: Account) => void): void {
  let h: Harness | undefined;
  beforeEach(async () => {
    h = await harness();
    const f = await fx(h);
    use({ h, f, pid: f.project.alpha });
  });
  afterEach(async () => { await h?.close(); });
}

/**
 * Another request's write, held open: it makes `change`, then awaits (as for I/O: other requests run
 * meanwhile) until `rollBack`, which releases it, lets it throw and checks that it rolled back.
 */
export function heldWrite(store: Store, change: (w: Writer) => Promise<unknown>): Promise<{ rollBack: () => Promise<void> }> {
  let release = (): void => undefined;
  const gate = new Promise<void>((r) => { release = r; });
  return new Promise((opened) => {
    const failing = store.write(async (w) => {
      await change(w);
      opened({ rollBack: async () => { release(); await expect(failing).rejects.toThrow('rolled back'); } });
      await gate;
      throw new Error('rolled back');
    });
  });
}
