#!/usr/bin/env node
// bivouac: the command line of the local service (contract §9.1).
//   bivouac serve  [--host H] [--port N] [--data-dir DIR] [--store URL] [--seed FILE] [--log-level L] [--no-demo]
//   bivouac token  [--data-dir DIR]            print the local API token
//   bivouac export [--data-dir DIR] [--out F]  the whole account as JSON (a backup)
//   bivouac import FILE [--data-dir DIR]       restore a backup, or import a seed, into an empty data dir
//   bivouac setup  --demo | --firm F --first-name A --last-name B --user U [--project P]   first run (password on stdin)
//                  [--data-dir DIR | --store URL]: also how a team server gets its first account (D240)

import { parseArgs } from 'node:util';
import { homedir, platform } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openStore, ownerToken, readJsonFile, removeStore, serve, servesNetwork, DB_FILE, StartError, type ServeOptions } from './server.ts';
import { SyncEngine } from './sync/engine.ts';
import { SyncError } from './service/sync.ts';
import { checkSeed, exportAccount, importBackup, importSeed, SeedError } from './service/account.ts';
import { DEMO_ACCOUNT } from './service/demo.ts';
import { StoreUnavailable, StoreVersionError } from './store/types.ts';
import { redact } from './store/postgres.ts';
import * as setup from './service/setup.ts';
import { ApiError } from './service/context.ts';
import { ADMIN_COMMANDS, ADMIN_USAGE, adminMain } from './admin-cli.ts';

const DEMO_ADMIN = DEMO_ACCOUNT.people.find((p) => p.administrator) ?? DEMO_ACCOUNT.people[0];

/** One line of standard input (a password piped in; never echoed, never an argument). */
async function readStdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}
import { writePrivateFile } from './store/files.ts';

export const DEFAULT_PORT = 4817;

/** Per-user data directory: XDG on Linux, Application Support on macOS, APPDATA on Windows. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, os = platform()): string {
  if (env.BIVOUAC_DATA_DIR) return env.BIVOUAC_DATA_DIR;
  if (os === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Bivouac');
  if (os === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Bivouac');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'bivouac');
}

const USAGE = `usage: bivouac <command> [options]
commands:
  serve             run the local API and UI (default)
  token             print the local API token
  export [--out F]  write the whole account as JSON (stdout without --out)
  import FILE       restore a backup or import a seed into an empty data directory
  setup             first run on an empty data directory: --demo loads the demo account, or
                    --firm F --first-name A --last-name B --user U [--project P] creates your own
                    (the password is read from stdin, or BIVOUAC_PASSWORD); with --store for a team
                    server on PostgreSQL. A team server offers no first run over HTTP: run this on its machine
options:
  --host H          address to bind (default 127.0.0.1)
  --port N          port (default ${DEFAULT_PORT}; 0 picks a free one)
  --data-dir DIR    where the store lives (default ${defaultDataDir()})
  --store URL       keep the account in PostgreSQL instead: postgres://USER@HOST:PORT/DB
                    (also BIVOUAC_STORE); several processes may share one database
  --seed FILE       fixture imported when the data directory holds no store yet
  --no-demo         start empty-handed instead of with the demo account
  --demo            create the demo account on a new store of a server that serves a network (a
                    non-loopback --host, --trust-proxy or --store), which otherwise starts empty
  --allow-host H    also accept this Host name: NAME on any port, NAME:PORT on that port only
                    (repeatable; required with a --host beyond loopback; loopback names always work)
  --trust-proxy P   behind a reverse proxy: take client address, scheme and Host from X-Forwarded-*
                    sent by P (loopback, addresses or CIDRs, comma-separated)
  --auth-guard on|off  slow down and refuse (429) repeated failed sign-ins (default: on unless loopback)
  --rate-limit N    requests per minute per person (default 0: no limit); --rate-burst B (default N)
  --tombstone-days N   keep deletions in the change feed N days (default 90)
  --idempotency-days N keep Idempotency-Key answers N days (default and minimum 30)
  --response-cache MB  memory for re-usable rendered responses (default 16; 0 turns it off)
  --wal-checkpoint W   who checkpoints the SQLite WAL: worker (default, a thread of its own) or sqlite
  --log-level L     fatal, error, warn, info, debug or silent (default warn)
sync with a remote (a team server or any server of the interface):
  serve --remote URL --remote-user U [--sync-interval S]
                    connect this data directory (an empty one is cloned first; default interval 30 s);
                    the password from --remote-password-file FILE, or BIVOUAC_REMOTE_PASSWORD, or a
                    prompt on a terminal; or a token in BIVOUAC_REMOTE_TOKEN instead of a user.
                    (--remote-password P and --remote-token T work too, but leave the secret in the
                    process's command line, readable by every local user)
  --sync-max-answer-mb N  read at most N MB of one answer of the remote (default 64; above: a sync error)
  sync              run one sync of a connected data directory and exit (0 once the outbox is empty)
${ADMIN_USAGE}`;

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  if (ADMIN_COMMANDS.includes(argv[0])) return adminMain(argv, defaultDataDir()); // people|projects|members (admin-cli.ts)
  let args;
  try {
    args = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: {
        host: { type: 'string' }, port: { type: 'string' }, 'data-dir': { type: 'string' }, store: { type: 'string' }, seed: { type: 'string' },
        'log-level': { type: 'string' }, 'no-demo': { type: 'boolean' }, out: { type: 'string' },
        'allow-host': { type: 'string', multiple: true }, 'response-cache': { type: 'string' },
        'wal-checkpoint': { type: 'string' }, help: { type: 'boolean', short: 'h' },
        remote: { type: 'string' }, 'remote-user': { type: 'string' }, 'remote-password': { type: 'string' }, 'remote-password-file': { type: 'string' },
        'remote-token': { type: 'string' }, 'sync-interval': { type: 'string' }, 'sync-max-answer-mb': { type: 'string' },
        'trust-proxy': { type: 'string' }, 'auth-guard': { type: 'string' }, 'rate-limit': { type: 'string' },
        'rate-burst': { type: 'string' }, 'tombstone-days': { type: 'string' }, 'idempotency-days': { type: 'string' },
        demo: { type: 'boolean' }, firm: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' },
        user: { type: 'string' }, project: { type: 'string' }, email: { type: 'string' },
      },
    });
  } catch (e) {
    process.stderr.write(`bivouac: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const o = args.values;
  if (o.help) { process.stdout.write(`${USAGE}\n`); return 0; }
  const [cmd = 'serve', ...rest] = args.positionals;
  const dataDir = resolve(o['data-dir'] ?? defaultDataDir());
  const storeUrl = (o.store as string | undefined) || process.env.BIVOUAC_STORE || null;
  /** Is there a store to read (a SQLite file in the data directory, or a PostgreSQL URL)? */
  const haveStore = () => storeUrl !== null || existsSync(join(dataDir, DB_FILE));
  const where = storeUrl ? redact(storeUrl) : dataDir;
  try {
    switch (cmd) {
      case 'serve': return await runServe(dataDir, storeUrl, o);
      case 'sync': return await runSync(dataDir);
      case 'token': {
        if (!haveStore()) throw new UsageError(`no store in ${dataDir}: run 'bivouac serve' first`);
        const store = await openStore(dataDir, null, false, storeUrl);
        const t = await ownerToken(store);
        await store.close();
        if (!t) throw new UsageError('the account has no people yet');
        process.stdout.write(`${t.token}\n`);
        return 0;
      }
      case 'export': {
        if (!haveStore()) throw new UsageError(`no store in ${dataDir}`);
        const store = await openStore(dataDir, null, false, storeUrl);
        const json = `${JSON.stringify(await exportAccount(store), null, 1)}\n`;
        await store.close();
        if (o.out) await writePrivateFile(o.out, json); // a backup holds every token and password hash: 0600
        else process.stdout.write(json);
        return 0;
      }
      case 'import': {
        const file = rest[0];
        if (!file) throw new UsageError('import needs a FILE');
        const data = await readJsonFile(file);
        const backup = data.format === 'bivouac-backup/1';
        if (!backup) checkSeed(data); // before anything is created
        const existed = haveStore();
        const store = await openStore(dataDir, null, false, storeUrl);
        let ok = false;
        try {
          if (!(await store.isEmpty())) throw new UsageError(`${where} already holds an account; import needs an empty ${storeUrl ? 'database' : 'data directory'}`);
          if (backup) await importBackup(store, data);
          else await importSeed(store, data);
          ok = true;
        } finally {
          await store.close();
          if (!ok && !existed) await removeStore(dataDir);
        }
        process.stdout.write(`imported ${file} into ${where}\n`);
        return 0;
      }
      case 'setup': {
        // On a team server (--store, or its data directory) while it runs or not: its only first run (D240).
        const existed = haveStore();
        const store = await openStore(dataDir, null, false, storeUrl);
        let ok = false;
        try {
          if (!(await store.isEmpty())) throw new UsageError(`${where} already holds an account: sign in with it`);
          if (o.demo) await setup.loadDemo(store);
          else {
            const password = process.env.BIVOUAC_PASSWORD ?? (await readStdinLine());
            await setup.createOwn(store, {
              firmName: o.firm ?? '', firstName: o['first-name'] ?? '', lastName: o['last-name'] ?? '', userName: o.user ?? '',
              password, email: o.email, projectName: o.project,
            });
          }
          ok = true;
        } catch (e) {
          if (e instanceof ApiError) throw new UsageError(e.messages.join('\n'));
          throw e;
        } finally {
          await store.close();
          if (!ok && !existed) await removeStore(dataDir);
        }
        process.stdout.write(o.demo ? `loaded the demo account into ${where}: sign in as ${DEMO_ADMIN['user-name']} / ${DEMO_ADMIN.password}\n`
          : `created the account "${o.firm}" in ${where}: sign in as ${o.user}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command '${cmd}'\n${USAGE}`);
    }
  } catch (e) {
    if (e instanceof StoreUnavailable || e instanceof StoreVersionError) {
      process.stderr.write(`bivouac: ${e.message}\n`);
      return 1;
    }
    if (e instanceof SyncError) {
      process.stderr.write(`bivouac: cannot connect to the remote: ${e.message}\n`);
      return 1;
    }
    if (e instanceof StartError) {
      process.stderr.write(`bivouac: ${e.message}\n`);
      return 2;
    }
    if (e instanceof UsageError || e instanceof SeedError || e instanceof SyntaxError) {
      process.stderr.write(`bivouac: ${e.message}\n`);
      return e instanceof UsageError ? 2 : 1;
    }
    throw e;
  }
}

/** A whole number flag in [min, max], or the default when absent. */
function count(o: Record<string, unknown>, name: string, dflt: number, min: number, max: number): number {
  const v = o[name] as string | undefined;
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new UsageError(`--${name} takes a whole number ${min}..${max}, got ${v}`);
  return Number(v);
}

function onOff(v: string | undefined, name: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (v === 'on' || v === 'off') return v === 'on';
  throw new UsageError(`--${name} takes on or off, got ${v}`);
}

function cacheMb(v: string | undefined): number {
  if (v === undefined) return 16;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || n > 4096) throw new UsageError(`--response-cache takes megabytes (0..4096), got ${v}`);
  return n;
}

/** `--wal-checkpoint worker|sqlite` (D180). */
function walCheckpoint(v: string | undefined): 'worker' | 'sqlite' {
  if (v === undefined || v === 'worker' || v === 'sqlite') return v ?? 'worker';
  throw new UsageError(`--wal-checkpoint takes worker or sqlite, got ${v}`);
}

/** Where the remote's secret comes from (D257): never the command line unless asked, with a warning. */
export interface SecretSources {
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (on: boolean) => unknown };
  readonly stderr: { write(s: string): unknown };
  readonly readFile: (file: string) => Promise<string>;
}

/** Read a secret on a terminal without echoing it (one line; Ctrl-C or Ctrl-D gives up). */
export function promptSecret(question: string, input: SecretSources['stdin'], output: SecretSources['stderr']): Promise<string> {
  return new Promise((resolve, reject) => {
    output.write(question);
    let text = '';
    const raw = typeof input.setRawMode === 'function';
    if (raw) input.setRawMode!(true);
    const done = (err: Error | null) => {
      input.removeListener('data', onData);
      if (raw) input.setRawMode!(false);
      input.pause();
      output.write('\n');
      if (err) reject(err);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n') { done(null); return; }
        if (ch === '\u0003' || ch === '\u0004') { done(new UsageError('no password given')); return; }
        if (ch === '\u007f' || ch === '\b') text = text.slice(0, -1);
        else text += ch;
      }
    };
    input.on('data', onData);
    input.resume();
  });
}

/**
 * `--remote URL` with a user and password or a token; null without --remote. The secret comes, in
 * this order, from the flags (warned about: argv is readable by every local user), a password file,
 * the environment, or a prompt when standard input is a terminal.
 */
export async function remoteOption(o: Record<string, string | boolean | string[] | undefined>, io: SecretSources): Promise<ServeOptions['remote']> {
  const url = o.remote as string | undefined;
  const user = o['remote-user'] as string | undefined;
  const flagPassword = o['remote-password'] as string | undefined, file = o['remote-password-file'] as string | undefined;
  const flagToken = o['remote-token'] as string | undefined;
  const envPassword = io.env.BIVOUAC_REMOTE_PASSWORD || undefined, envToken = io.env.BIVOUAC_REMOTE_TOKEN || undefined; // empty: not given
  // Read once, not handed down to child processes.
  delete io.env.BIVOUAC_REMOTE_PASSWORD;
  delete io.env.BIVOUAC_REMOTE_TOKEN;
  if (!url) {
    if (user || flagPassword !== undefined || file || flagToken) throw new UsageError('--remote-user, --remote-password, --remote-password-file and --remote-token need --remote URL');
    return null;
  }
  const warn = (flag: string, instead: string) => io.stderr.write(`bivouac: warning: ${flag} leaves the secret in this process's command line, readable by every user of this machine while it runs; use ${instead} instead\n`);
  if (flagToken !== undefined) {
    if (user || flagPassword !== undefined || file) throw new UsageError('give either --remote-token or --remote-user and a password, not both');
    if (!flagToken) throw new UsageError('--remote-token is empty');
    warn('--remote-token', 'BIVOUAC_REMOTE_TOKEN');
    return { url, auth: { token: flagToken } };
  }
  if (!user) {
    if (flagPassword !== undefined || file) throw new UsageError('a remote password needs --remote-user U');
    if (envToken) return { url, auth: { token: envToken } };
    throw new UsageError('--remote needs --remote-user U (the password from --remote-password-file, BIVOUAC_REMOTE_PASSWORD or a prompt), or a token in BIVOUAC_REMOTE_TOKEN');
  }
  if (flagPassword !== undefined && file) throw new UsageError('give either --remote-password or --remote-password-file, not both');
  let password: string | undefined;
  if (flagPassword !== undefined) {
    warn('--remote-password', '--remote-password-file FILE, BIVOUAC_REMOTE_PASSWORD or the prompt');
    password = flagPassword;
  } else if (file) {
    let text: string;
    try {
      text = await io.readFile(file);
    } catch (e) {
      throw new UsageError(`cannot read --remote-password-file ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
    password = text.replace(/\r?\n$/, '');
    if (!password) throw new UsageError(`--remote-password-file ${file} is empty`);
  } else if (envPassword !== undefined) password = envPassword;
  else if (io.stdin.isTTY) password = await promptSecret(`Password of ${user} at ${url}: `, io.stdin, io.stderr);
  else throw new UsageError('--remote-user needs a password: --remote-password-file FILE, BIVOUAC_REMOTE_PASSWORD, or run it on a terminal to be asked');
  return { url, auth: { user, password } };
}

function interval(v: string | undefined): number {
  if (v === undefined) return 30;
  if (!/^\d+$/.test(v) || Number(v) > 86_400) throw new UsageError(`--sync-interval takes seconds (0..86400), got ${v}`);
  return Number(v);
}

/** The command line's progress text for a sync (`bivouac sync`, `serve --remote`): a bar and "n of m". */
export function progressBar(p: { phase: 'pull' | 'push'; done: number; total: number }, width = 24): string {
  const done = Math.min(p.done, p.total);
  const bar = p.total ? `[${'#'.repeat(Math.round((width * done) / p.total)).padEnd(width, '.')}] ${done} of ${p.total}` : `${p.done} read`;
  return `${p.phase === 'pull' ? 'pulling' : 'pushing'} ${bar}`;
}

const progressLine = (p: { phase: 'pull' | 'push'; done: number; total: number }) => {
  if (!process.stderr.isTTY) return;
  process.stderr.write(`\r  ${progressBar(p)}   `);
};

async function runSync(dataDir: string): Promise<number> {
  if (!existsSync(join(dataDir, DB_FILE))) throw new UsageError(`no store in ${dataDir}`);
  const store = await openStore(dataDir, null, false);
  const engine = new SyncEngine({ store, dataDir, intervalSec: 0, onProgress: progressLine });
  engine.stop();
  try {
    if (!(await engine.resume())) throw new UsageError(`${dataDir} is not connected to a remote (bivouac serve --remote URL …)`);
    let failure: string | null = null;
    await engine.run().catch((e: Error) => { failure = e.message; });
    const st = await engine.status();
    if (process.stderr.isTTY) process.stderr.write('\n');
    const summary = `pending ${st.pending}, conflicts ${st.conflicts}, rejected ${st.rejected}`;
    if (failure || st.pending) {
      process.stderr.write(`bivouac: sync with ${st.remote?.url} did not finish: ${failure ?? 'the outbox is not empty'} (${summary})\n`);
      return 1;
    }
    process.stdout.write(`synced with ${st.remote?.url} (${summary})\n`);
    return 0;
  } finally {
    await engine.idle();
    await store.close();
  }
}

function rateOf(o: Record<string, unknown>): { perMinute: number; burst: number } | null {
  const perMinute = count(o, 'rate-limit', 0, 0, 1_000_000);
  if (!perMinute) return null;
  return { perMinute, burst: count(o, 'rate-burst', perMinute, 1, 1_000_000) };
}

async function runServe(dataDir: string, storeUrl: string | null, o: Record<string, string | boolean | string[] | undefined>): Promise<number> {
  const port = o.port === undefined ? DEFAULT_PORT : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, got ${String(o.port)}`);
  const uiDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'renderer');
  const remote = await remoteOption(o, { env: process.env, stdin: process.stdin, stderr: process.stderr, readFile: (f) => readFile(f, 'utf8') });
  const syncIntervalSec = interval(o['sync-interval'] as string | undefined);
  const syncMaxAnswerMb = count(o, 'sync-max-answer-mb', 64, 1, 4096);
  if (o.demo && o['no-demo']) throw new UsageError('give --demo or --no-demo, not both');
  const host = (o.host as string) ?? '127.0.0.1';
  const trustProxy = (o['trust-proxy'] as string | undefined) || undefined;
  const running = await serve({
    remote, syncIntervalSec, syncMaxAnswerMb, onSyncProgress: progressLine,
    dataDir, storeUrl, host, port, seed: (o.seed as string) ?? null, demo: o['no-demo'] ? false : o.demo ? true : undefined,
    uiDir: existsSync(uiDir) ? uiDir : null, logLevel: (o['log-level'] as string) ?? 'warn',
    allowedHosts: (o['allow-host'] as string[]) ?? [],
    responseCacheMb: cacheMb(o['response-cache'] as string | undefined),
    walCheckpoint: walCheckpoint(o['wal-checkpoint'] as string | undefined),
    trustProxy,
    authGuard: onOff(o['auth-guard'] as string | undefined, 'auth-guard'),
    rateLimit: rateOf(o),
    retention: { tombstoneDays: count(o, 'tombstone-days', 90, 1, 36500), idempotencyDays: count(o, 'idempotency-days', 30, 30, 36500) },
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await running.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Announce only once SIGTERM/SIGINT stop it cleanly: a supervisor may signal as soon as it reads the URL.
  const empty = await running.store.isEmpty();
  let banner = `Bivouac is running at ${running.url}/\n  data: ${storeUrl ? redact(storeUrl) : dataDir}\n`;
  // No account yet (--no-demo on a new data directory): say how to make one, not where a token would be.
  if (empty && running.connecting) banner += '  No account yet: it comes with the clone of the remote\n';
  else if (empty && servesNetwork({ host, trustProxy, storeUrl, allowedHosts: (o['allow-host'] as string[]) ?? [] })) {
    banner += `  No account yet: create it on this machine with 'bivouac setup${storeUrl ? ' --store URL' : ` --data-dir ${dataDir}`}' (see --help); `
      + 'a server that serves a network offers no first run over HTTP\n';
  } else if (empty) banner += `  No account yet: open ${running.url}/ to create yours or load the demo, or run 'bivouac setup' (see --help)\n`;
  else banner += `  API token: ${running.tokenFile} (or: bivouac token)\n`;
  if (running.demoCreated) {
    const admin = DEMO_ACCOUNT.people.find((p) => p.administrator) ?? DEMO_ACCOUNT.people[0];
    banner += `  New data directory: created the demo account "${DEMO_ACCOUNT.account.name}". Sign in as ${admin['user-name']} / ${admin.password}\n`;
  }
  process.stdout.write(banner);
  // The connect goes on in the background (D253): the service already answers; its outcome is printed.
  if (running.connecting && remote) {
    process.stdout.write(`  Connecting to ${remote.url} in the background (GET /sync/status shows how it goes)\n`);
    running.connecting.then(
      () => process.stdout.write(`Connected to ${remote.url}\n  API token: ${running.tokenFile} (or: bivouac token)\n`),
      // Refused (credentials, another remote, local work that cannot go up…): nothing was changed; exit 1 as
      // before. A remote that does not answer is no refusal: it is tried again with the backoff, the service runs on.
      async (e: Error) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`bivouac: cannot connect to the remote: ${e.message}\n`);
        await running.close();
        process.exit(1);
      },
    );
  }
  return -1; // keep running
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => { if (code >= 0) process.exit(code); },
    (e: unknown) => {
      process.stderr.write(`bivouac: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
