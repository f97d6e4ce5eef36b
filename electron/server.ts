// Starting and stopping the local service: store + HTTP app + UI. Used by the CLI, by the
// Electron main process and by the tests (plain Node, no Electron).

import { existsSync } from 'node:fs';
import { readFile, rm, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, parseHost } from './http/app.ts';
import { SqliteStore } from './store/sqlite.ts';
import { PgStore } from './store/postgres.ts';
import { repairPrivateFile, writePrivateFile } from './store/files.ts';
import { checkSeed, importSeed, SeedError } from './service/account.ts';
import { seedDemo } from './service/demo.ts';
import type { Store } from './store/types.ts';
import { maintain, type Retention } from './service/maintenance.ts';
import type { GuardOptions, RateOptions } from './service/limits.ts';
import { ownerCredentials } from './store/queries/people.ts';
import { SyncEngine } from './sync/engine.ts';
import type { TokenVault } from './sync/token-vault.ts';
import { ownerId, servesNetwork } from './sync/owner.ts';
import { personSecrets } from './store/queries/replica.ts';
import type { RemoteCredentials } from './service/sync.ts';

export interface ServeOptions {
  readonly dataDir: string;
  /** A PostgreSQL URL (postgres://USER@HOST:PORT/DB): the team server's store instead of SQLite in dataDir. */
  readonly storeUrl?: string | null;
  readonly host?: string;
  readonly port?: number;
  /** A fixture imported when the data directory holds no store yet (§9.1). */
  readonly seed?: string | null;
  /**
   * Without a seed, a new store gets the demo account. Default: yes on the loopback-only local service, never
   * on a server that serves a network (servesNetwork) unless asked (`serve --demo`, D241).
   */
  readonly demo?: boolean;
  readonly uiDir?: string | null;
  readonly logLevel?: string;
  /** Where the log's lines go (AppOptions.logStream); default stdout. */
  readonly logStream?: { write(line: string): void };
  readonly allowedHosts?: readonly string[];
  /** MiB of rendered GET responses kept for re-use (0: off). */
  readonly responseCacheMb?: number;
  /** Connect this data directory to a remote (issue #8): an empty one is cloned first. */
  readonly remote?: { readonly url: string; readonly auth: RemoteCredentials } | null;
  /** Where the sync engine keeps the remote token (default: <dataDir>/remote-token, 0600; D110). */
  readonly remoteTokenVault?: TokenVault;
  /** Seconds between syncs (default 30; 0: only after writes and on POST /sync/run). */
  readonly syncIntervalSec?: number;
  /** MiB of one remote answer read at most (default 64; `--sync-max-answer-mb`, D249). */
  readonly syncMaxAnswerMb?: number;
  /** Progress of the first clone (the command line's progress bar). */
  readonly onSyncProgress?: (p: { phase: 'pull' | 'push'; done: number; total: number }) => void;
  /** Behind a reverse proxy: trust X-Forwarded-* from these proxies (see AppOptions.trustProxy). */
  readonly trustProxy?: boolean | string;
  /** Brute-force protection; default: on when bound beyond loopback or behind a proxy, off for the local service. */
  readonly authGuard?: boolean | GuardOptions;
  readonly rateLimit?: RateOptions | null;
  /** Feed and idempotency-key retention (days). */
  readonly retention?: Retention;
  /**
   * Seconds an idle keep-alive connection stays open. Default: 72 for a team server (on the network,
   * behind a proxy, or on PostgreSQL), longer than a load balancer's usual 60 s idle timeout, so the
   * balancer always closes an idle connection first (D140); 5 for the local service.
   */
  readonly keepAliveSec?: number;
  /**
   * Write the owner's token to `<dataDir>/api-token` (default true, for `bivouac token` and local
   * tools). The desktop app keeps it encrypted with safeStorage instead (electron/shell/secrets.ts).
   */
  readonly writeTokenFile?: boolean;
  /**
   * Who checkpoints SQLite's WAL: 'worker' (default: a worker thread, off the request thread; D180) or
   * 'sqlite' (SQLite itself, inside the COMMIT that crosses 1,000 pages, as before D180).
   */
  readonly walCheckpoint?: 'worker' | 'sqlite';
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
  const bad = allowedHosts.find((h) => !parseHost(h));
  if (bad !== undefined) throw new StartError(`--allow-host takes NAME or NAME:PORT (e.g. bivouac.example.com, bivouac.lan:8080), got ${JSON.stringify(bad)}`);
  if (isLoopback(host) || allowedHosts.length > 0) return;
  throw new StartError(`--host ${host} listens beyond this machine: give the name(s) clients use to reach it with `
    + '--allow-host NAME (repeatable), e.g. --allow-host bivouac.example.com; requests with any other Host header are refused');
}

/**
 * Does this server serve a network (a team server, D240, D254)? Why it does, or null: a non-loopback --host,
 * any --trust-proxy, a PostgreSQL store, or --allow-host (electron/sync/owner.ts). Such a server creates no
 * demo account unless asked, never offers the first-run setup over HTTP (`bivouac setup` on its machine does
 * it) and never becomes a replica.
 */
export { servesNetwork };

export interface Running {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly url: string;
  readonly tokenFile: string;
  /** True when this start created the demo account (a new data directory, no seed). */
  readonly demoCreated: boolean;
  /** The sync engine (standalone until connected). */
  readonly sync: SyncEngine;
  /**
   * The connect asked with `remote`, going on in the background (D253): resolves once linked, rejects
   * with the remote's refusal; null when nothing was to connect (no `remote`, or already its replica).
   */
  readonly connecting: Promise<void> | null;
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

/** Open the store in a data directory (or at a PostgreSQL URL), importing the seed (or the demo) if it is new. */
export async function openStore(dataDir: string, seed?: string | null, demo = true, storeUrl?: string | null): Promise<Store> {
  return (await openSeeded(dataDir, seed, demo, storeUrl)).store;
}

async function openSeeded(dataDir: string, seed: string | null | undefined, demo: boolean, storeUrl: string | null | undefined, walCheckpoint: 'worker' | 'sqlite' = 'worker'): Promise<{ store: Store; demoCreated: boolean }> {
  const fresh = storeUrl ? true : !existsSync(join(dataDir, DB_FILE));
  // The fixture is read and checked completely before anything is created: an invalid one leaves no store.
  let fixture: unknown;
  if (fresh && seed) fixture = checkSeed(await readJsonFile(seed));
  const store: Store = storeUrl ? await PgStore.open(storeUrl) : new SqliteStore(join(dataDir, DB_FILE), { checkpoints: walCheckpoint === 'sqlite' ? false : undefined });
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

/** A team server's keep-alive (s): above the 60 s idle timeout of common load balancers (nginx, cloud ones). */
export const TEAM_KEEP_ALIVE_SEC = 72;

export async function serve(o: ServeOptions): Promise<Running> {
  const host = o.host ?? '127.0.0.1';
  checkBind(host, o.allowedHosts ?? []);
  // A team server never becomes a replica (D254): refused before anything is opened or requested.
  const network = servesNetwork({ host, trustProxy: o.trustProxy, storeUrl: o.storeUrl, allowedHosts: o.allowedHosts });
  if (o.remote && network) {
    throw new StartError(`--remote makes a data directory a replica, and this server is used by more than one person (${network}): only the local service of one person's desktop app can become a replica. Nothing was changed and ${o.remote.url} was not contacted`);
  }
  // A replica starts empty: it is filled by cloning the remote, never with the demo account. A team
  // server gets the demo only when asked (D241).
  const demo = (o.demo ?? !network) && !o.remote;
  const { store, demoCreated } = await openSeeded(o.dataDir, o.seed, demo, o.storeUrl, o.walCheckpoint);
  const tokenFile = join(o.dataDir, 'api-token');
  // A clone interrupted and finished later brings the owner then: the api-token file appears at that sync.
  const onSynced = async () => { if (o.writeTokenFile !== false && !existsSync(tokenFile)) await onAccountCreated(); };
  const sync = new SyncEngine({ store, dataDir: o.dataDir, tokenVault: o.remoteTokenVault, intervalSec: o.syncIntervalSec, maxAnswerMb: o.syncMaxAnswerMb, onProgress: o.onSyncProgress, network, onSynced });
  let connectTo: ServeOptions['remote'] = null;
  try {
    const resumed = await sync.resume();
    const st = resumed ? await sync.status() : null;
    // The connect goes on in the background once the service listens, whatever the remote does (D253).
    if (o.remote && (!resumed || st?.remote?.url !== o.remote.url.replace(/\/+$/, ''))) connectTo = o.remote;
    else if (resumed) void sync.run().catch(() => undefined); // offline is fine: the replica works on
  } catch (e) {
    sync.stop();
    await store.close();
    throw e;
  }
  await mkdir(o.dataDir, { recursive: true });
  // After a first-run setup (no account at start), the token file appears like on any other start.
  async function onAccountCreated(): Promise<void> {
    const owner = await ownerToken(store);
    if (owner && o.writeTokenFile !== false) await writePrivateFile(tokenFile, `${owner.token}\n`);
  }
  const app = await buildApp({ store, host, uiDir: o.uiDir, onAccountCreated, logLevel: o.logLevel, logStream: o.logStream, allowedHosts: o.allowedHosts,
    responseCacheBytes: Math.round((o.responseCacheMb ?? 16) * 1024 * 1024),
    keepAliveMs: (o.keepAliveSec ?? (!isLoopback(host) || o.trustProxy || o.storeUrl ? TEAM_KEEP_ALIVE_SEC : 5)) * 1000,
    trustProxy: o.trustProxy, network: network !== null, authGuard: o.authGuard ?? (!isLoopback(host) || Boolean(o.trustProxy)), rateLimit: o.rateLimit, sync });
  const owner = await ownerToken(store);
  if (o.writeTokenFile === false) await rm(tokenFile, { force: true }); // no plain copy left behind
  else if (owner) await writePrivateFile(tokenFile, `${owner.token}\n`);
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
  // Once linked (a clone brought the owner), the api-token file appears as after a first-run setup.
  const connecting = connectTo ? sync.connectInBackground(connectTo.url, connectTo.auth).then(() => onAccountCreated()) : null;
  connecting?.catch(() => undefined); // the status says why; the CLI prints it
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
  // One listener function for every response (no closure and `once` wrapper per request).
  function done(this: object): void { open.delete(this); }
  app.server.on('request', (_req, res) => {
    open.add(res);
    res.on('close', done);
  });
  let closing: Promise<{ drained: boolean }> | null = null;
  return {
    app, store, url: `http://${shown}:${port}`, tokenFile, demoCreated, sync, connecting,
    inFlight: () => open.size,
    close(opts: CloseOptions = {}) {
      closing ??= (async () => {
        clearInterval(timer);
        sync.stop();
        await sync.idle();
        // Fastify's close stops listening, answers new requests with 503 and waits for those in flight.
        const appClosed = app.close();
        let drained = true;
        const grace = opts.graceMs;
        if (grace !== undefined && Number.isFinite(grace)) {
          let graceTimer: NodeJS.Timeout | undefined;
          const late = await Promise.race([
            appClosed.then(() => false),
            new Promise<boolean>((resolve) => { graceTimer = setTimeout(() => resolve(true), Math.max(0, grace)); }),
          ]);
          clearTimeout(graceTimer);
          if (late) {
            // Requests still running are cut (unanswered, so not acknowledged). Every other connection goes
            // too: one whose next request is half sent is neither idle (Fastify's close leaves it) nor a
            // request in flight, and would hold the close until the server's header timeout.
            drained = open.size === 0;
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
