// Starting and stopping the local service: store + HTTP app + UI. Used by the CLI, by the
// Electron main process and by the tests (plain Node, no Electron).

import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './http/app.ts';
import { SqliteStore } from './store/sqlite.ts';
import { repairPrivateFile, writePrivateFile } from './store/files.ts';
import { checkSeed, importSeed, SeedError } from './service/account.ts';
import { seedDemo } from './service/demo.ts';
import type { Store } from './store/types.ts';
import { ownerCredentials } from './store/queries/people.ts';
import { SyncEngine } from './sync/engine.ts';
import { ownerId } from './sync/owner.ts';
import { personSecrets } from './store/queries/sync.ts';
import type { RemoteCredentials } from './service/sync.ts';

export interface ServeOptions {
  readonly dataDir: string;
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
  /** Connect this data directory to a remote (issue #8): an empty one is cloned first. */
  readonly remote?: { readonly url: string; readonly auth: RemoteCredentials } | null;
  /** Seconds between syncs (default 30; 0: only after writes and on POST /sync/run). */
  readonly syncIntervalSec?: number;
  /** Progress of the first clone (the command line's progress bar). */
  readonly onSyncProgress?: (p: { phase: 'pull' | 'push'; done: number; total: number }) => void;
}

export interface Running {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly url: string;
  readonly tokenFile: string;
  /** True when this start created the demo account (a new data directory, no seed). */
  readonly demoCreated: boolean;
  /** The sync engine (standalone until connected). */
  readonly sync: SyncEngine;
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

/** Open the store in a data directory, importing the seed (or the demo) if it is new. */
export async function openStore(dataDir: string, seed?: string | null, demo = true): Promise<SqliteStore> {
  const fresh = !existsSync(join(dataDir, DB_FILE));
  // The fixture is read and checked completely before anything is created: an invalid one leaves no store.
  let fixture: unknown;
  if (fresh && seed) fixture = checkSeed(await readJsonFile(seed));
  const store = new SqliteStore(join(dataDir, DB_FILE));
  try {
    if (await store.isEmpty()) {
      if (fixture !== undefined) await importSeed(store, fixture);
      else if (demo) await seedDemo(store);
    }
  } catch (e) {
    await store.close();
    if (fresh) await removeStore(dataDir);
    throw e;
  }
  return store;
}

/**
 * The token of the local user of the desktop app: on a replica the remote person it was cloned as,
 * standalone the account's first administrator.
 */
export async function ownerToken(store: Store): Promise<{ token: string; userName: string } | undefined> {
  const self = await ownerId(store);
  if (self !== null) {
    const p = await personSecrets(store, self);
    return p?.token ? { token: p.token, userName: p.user_name ?? '' } : undefined;
  }
  const r = await ownerCredentials(store);
  return r ? { token: r.token, userName: r.user_name } : undefined;
}

export async function serve(o: ServeOptions): Promise<Running> {
  // A replica starts empty: it is filled by cloning the remote, never with the demo account.
  const demo = (o.demo ?? true) && !o.remote;
  const demoCreated = !o.seed && demo && !existsSync(join(o.dataDir, DB_FILE));
  const store = await openStore(o.dataDir, o.seed, demo);
  const sync = new SyncEngine({ store, dataDir: o.dataDir, intervalSec: o.syncIntervalSec, onProgress: o.onSyncProgress });
  try {
    const resumed = await sync.resume();
    const st = resumed ? await sync.status() : null;
    if (o.remote && (!resumed || st?.remote?.url !== o.remote.url.replace(/\/+$/, ''))) await sync.connect(o.remote.url, o.remote.auth);
    else if (resumed) void sync.run().catch(() => undefined); // offline is fine: the replica works on
  } catch (e) {
    sync.stop();
    await store.close();
    throw e;
  }
  const host = o.host ?? '127.0.0.1';
  const app = await buildApp({ store, host, uiDir: o.uiDir, logLevel: o.logLevel, allowedHosts: o.allowedHosts,
    responseCacheBytes: Math.round((o.responseCacheMb ?? 16) * 1024 * 1024), sync });
  const tokenFile = join(o.dataDir, 'api-token');
  const owner = await ownerToken(store);
  if (owner) await writePrivateFile(tokenFile, `${owner.token}\n`);
  else repairPrivateFile(tokenFile);
  try {
    await app.listen({ host, port: o.port ?? 4817 });
  } catch (e) {
    sync.stop();
    await app.close();
    await store.close();
    throw e;
  }
  if (sync.connected) sync.start();
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    app, store, url: `http://${shown}:${port}`, tokenFile, demoCreated, sync,
    async close() {
      sync.stop();
      await sync.idle();
      await app.close();
      await store.close();
    },
  };
}
