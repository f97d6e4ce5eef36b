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
import { maintain, type Retention } from './service/maintenance.ts';
import type { GuardOptions, RateOptions } from './service/limits.ts';
import { ownerCredentials } from './store/queries/people.ts';

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
  /** Behind a reverse proxy: trust X-Forwarded-* from these proxies (see AppOptions.trustProxy). */
  readonly trustProxy?: boolean | string;
  /** Brute-force protection; default: on when bound beyond loopback or behind a proxy, off for the local service. */
  readonly authGuard?: boolean | GuardOptions;
  readonly rateLimit?: RateOptions | null;
  /** Feed and idempotency-key retention (days). */
  readonly retention?: Retention;
  /**
   * Write the owner's token to `<dataDir>/api-token` (default true, for `bivouac token` and local
   * tools). The desktop app keeps it encrypted with safeStorage instead (electron/shell/secrets.ts).
   */
  readonly writeTokenFile?: boolean;
}

export interface CloseOptions {
  /**
   * How long requests in flight may take to finish (default: as long as they need). After that their
   * connections are cut; a write that has begun still commits before the store closes, and a write
   * whose answer was sent was committed before it: no acknowledged write is lost either way.
   */
  readonly graceMs?: number;
}

/** A configuration the server refuses to start with (the CLI prints it and exits 2). */
export class StartError extends Error {}

export const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/** Listening beyond this machine needs the Host names clients use (DNS-rebinding guard, D61). */
export function checkBind(host: string, allowedHosts: readonly string[]): void {
  if (isLoopback(host) || allowedHosts.length > 0) return;
  throw new StartError(`--host ${host} listens beyond this machine: give the name(s) clients use to reach it with `
    + '--allow-host NAME (repeatable), e.g. --allow-host bivouac.example.com; requests with any other Host header are refused');
}

export interface Running {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly url: string;
  readonly tokenFile: string;
  /** True when this start created the demo account (a new data directory, no seed). */
  readonly demoCreated: boolean;
  /** Requests being handled right now (a write is acknowledged when its answer is sent). */
  inFlight(): number;
  /**
   * Stop taking requests (new ones get 503), let those in flight finish (bounded by graceMs), then
   * close the store after its last write. drained: false when requests had to be cut off.
   */
  close(opts?: CloseOptions): Promise<{ drained: boolean }>;
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

/** The token of the account's first administrator: the local user of the desktop app. */
export async function ownerToken(store: Store): Promise<{ token: string; userName: string } | undefined> {
  const r = await ownerCredentials(store);
  return r ? { token: r.token, userName: r.user_name } : undefined;
}

export async function serve(o: ServeOptions): Promise<Running> {
  const host = o.host ?? '127.0.0.1';
  checkBind(host, o.allowedHosts ?? []);
  const demoCreated = !o.seed && (o.demo ?? true) && !existsSync(join(o.dataDir, DB_FILE));
  const store = await openStore(o.dataDir, o.seed, o.demo ?? true);
  const tokenFile = join(o.dataDir, 'api-token');
  // After a first-run setup (no account at start), the token file appears like on any other start.
  const onAccountCreated = async () => {
    const owner = await ownerToken(store);
    if (owner && o.writeTokenFile !== false) await writePrivateFile(tokenFile, `${owner.token}\n`);
  };
  const app = await buildApp({ store, host, uiDir: o.uiDir, onAccountCreated, logLevel: o.logLevel, allowedHosts: o.allowedHosts,
    responseCacheBytes: Math.round((o.responseCacheMb ?? 16) * 1024 * 1024),
    trustProxy: o.trustProxy, authGuard: o.authGuard ?? (!isLoopback(host) || Boolean(o.trustProxy)), rateLimit: o.rateLimit });
  const owner = await ownerToken(store);
  if (o.writeTokenFile === false) await rm(tokenFile, { force: true }); // no plain copy left behind
  else if (owner) await writePrivateFile(tokenFile, `${owner.token}\n`);
  else repairPrivateFile(tokenFile);
  try {
    await app.listen({ host, port: o.port ?? 4817 });
  } catch (e) {
    await app.close();
    await store.close();
    throw e;
  }
  // Retention and counters: now, then hourly (per server instance; no module-level timer).
  const housekeeping = () => maintain(store, o.retention).catch((e: unknown) => app.log.error(e));
  await housekeeping();
  const timer = setInterval(() => void housekeeping(), 3_600_000);
  timer.unref();
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  const shown = host.includes(':') ? `[${host}]` : host;
  // Requests in flight, counted on the HTTP server itself (every route, whatever its plugin does).
  const open = new Set<object>();
  app.server.on('request', (_req, res) => {
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  let closing: Promise<{ drained: boolean }> | null = null;
  return {
    app, store, url: `http://${shown}:${port}`, tokenFile, demoCreated,
    inFlight: () => open.size,
    close(opts: CloseOptions = {}) {
      closing ??= (async () => {
        clearInterval(timer);
        // Fastify's close stops listening, answers new requests with 503 and waits for those in flight.
        const appClosed = app.close();
        let drained = true;
        const grace = opts.graceMs;
        if (grace !== undefined && Number.isFinite(grace)) {
          let graceTimer: NodeJS.Timeout | undefined;
          const late = await Promise.race([
            appClosed.then(() => false),
            new Promise<boolean>((resolve) => { graceTimer = setTimeout(() => resolve(open.size > 0), Math.max(0, grace)); }),
          ]);
          clearTimeout(graceTimer);
          if (late) {
            drained = false;
            app.server.closeAllConnections();
          }
        }
        await appClosed;
        await store.close(); // waits for the store's queue: a write that has begun commits
        return { drained };
      })();
      return closing;
    },
  };
}
