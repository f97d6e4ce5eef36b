// Starting and stopping the local service: store + HTTP app + UI. Used by the CLI, by the
// Electron main process and by the tests (plain Node, no Electron).

import { existsSync } from 'node:fs';
import { readFile, rm, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './http/app.ts';
import { SqliteStore } from './store/sqlite.ts';
import { PgStore } from './store/postgres.ts';
import { repairPrivateFile, writePrivateFile } from './store/files.ts';
import { checkSeed, importSeed, SeedError } from './service/account.ts';
import { seedDemo } from './service/demo.ts';
import type { Store } from './store/types.ts';
import { ownerCredentials } from './store/queries/people.ts';

export interface ServeOptions {
  readonly dataDir: string;
  /** A PostgreSQL URL (postgres://USER@HOST:PORT/DB): the team server's store instead of SQLite in dataDir. */
  readonly storeUrl?: string | null;
  readonly host?: string;
  readonly port?: number;
  /** A fixture imported when the data directory holds no store yet (§9.1). */
  readonly seed?: string | null;
  /** Without a seed, a new store gets the demo account. */
  readonly demo?: boolean;
  readonly uiDir?: string | null;
  readonly logLevel?: string;
  readonly allowedHosts?: readonly string[];
  /** MiB of rendered GET responses kept for re-use (0: off). */
  readonly responseCacheMb?: number;
}

export interface Running {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly url: string;
  readonly tokenFile: string;
  /** True when this start created the demo account (a new data directory, no seed). */
  readonly demoCreated: boolean;
  close(): Promise<void>;
}

export const DB_FILE = 'bivouac.sqlite';

/** Read a JSON file (a fixture or a backup); SeedError when it cannot be read or parsed. */
export async function readJsonFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new SeedError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new SeedError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Delete the store files of a data directory (after a failed first import). */
export async function removeStore(dataDir: string): Promise<void> {
  for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, `${DB_FILE}-journal`]) await rm(join(dataDir, f), { force: true });
}

/** Open the store in a data directory (or at a PostgreSQL URL), importing the seed (or the demo) if it is new. */
export async function openStore(dataDir: string, seed?: string | null, demo = true, storeUrl?: string | null): Promise<Store> {
  return (await openSeeded(dataDir, seed, demo, storeUrl)).store;
}

async function openSeeded(dataDir: string, seed: string | null | undefined, demo: boolean, storeUrl: string | null | undefined): Promise<{ store: Store; demoCreated: boolean }> {
  const fresh = storeUrl ? true : !existsSync(join(dataDir, DB_FILE));
  // The fixture is read and checked completely before anything is created: an invalid one leaves no store.
  let fixture: unknown;
  if (fresh && seed) fixture = checkSeed(await readJsonFile(seed));
  const store: Store = storeUrl ? await PgStore.open(storeUrl) : new SqliteStore(join(dataDir, DB_FILE));
  let demoCreated = false;
  try {
    // Seeding checks emptiness inside its transaction: processes starting together import once.
    if (fixture !== undefined) await importSeed(store, fixture, { ifEmpty: true });
    else if (demo) demoCreated = await seedDemo(store);
  } catch (e) {
    await store.close();
    if (fresh && !storeUrl) await removeStore(dataDir);
    throw e;
  }
  return { store, demoCreated };
}

/** The token of the account's first administrator: the local user of the desktop app. */
export async function ownerToken(store: Store): Promise<{ token: string; userName: string } | undefined> {
  const r = await ownerCredentials(store);
  return r ? { token: r.token, userName: r.user_name } : undefined;
}

export async function serve(o: ServeOptions): Promise<Running> {
  const { store, demoCreated } = await openSeeded(o.dataDir, o.seed, o.demo ?? true, o.storeUrl);
  const host = o.host ?? '127.0.0.1';
  const app = await buildApp({ store, host, uiDir: o.uiDir, logLevel: o.logLevel, allowedHosts: o.allowedHosts,
    responseCacheBytes: Math.round((o.responseCacheMb ?? 16) * 1024 * 1024) });
  const tokenFile = join(o.dataDir, 'api-token');
  await mkdir(o.dataDir, { recursive: true });
  const owner = await ownerToken(store);
  if (owner) await writePrivateFile(tokenFile, `${owner.token}\n`);
  else repairPrivateFile(tokenFile);
  try {
    await app.listen({ host, port: o.port ?? 4817 });
  } catch (e) {
    await app.close();
    await store.close();
    throw e;
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    app, store, url: `http://${shown}:${port}`, tokenFile, demoCreated,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
