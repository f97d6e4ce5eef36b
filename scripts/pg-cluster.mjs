// A throwaway PostgreSQL cluster for tests and benchmarks: Debian's `postgresql` package (installed
// with apt-get when missing), `initdb` + `pg_ctl` in a temporary directory on a free loopback port,
// run as the unprivileged `postgres` user when we are root. Always `stop()` it (it also removes the
// directory); `stopSync()` is for exit handlers. A process killed before it could stop its cluster leaves
// it to a reaper, which stops it and removes the directory (see REAPER).
//
//   const c = await startCluster();   // { url, port, dir, reaperPid, createDatabase(name), pause(), resume(), stop(), stopSync() }
//   node scripts/pg-cluster.mjs      // start one, print its URL, stop it on Ctrl-C (manual testing)

import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * The reaper's program (`node -e REAPER OWNER-PID STOP-COMMAND-JSON DIR`), a child of the owner: every half
 * second, whether it is still the owner's child. An owner that exits, however it dies, hands its children to
 * another parent at once (before it is reaped, so a zombie owner counts as gone, and a reused PID cannot
 * pass for it). Then, for a few seconds (an owner killed during `pg_ctl start` leaves a server starting): the
 * stop command; a postmaster still running in the data directory (its PID from postmaster.pid, its working
 * directory checked, so that a stale file cannot name another process) gets SIGQUIT (immediate shutdown),
 * then SIGKILL. The directory is removed only once no server has run in it for two seconds.
 */
const REAPER = `
const [owner, cmd, dir] = [Number(process.argv[1]), JSON.parse(process.argv[2]), process.argv[3]];
const { spawnSync } = process.getBuiltinModule('node:child_process');
const { readFileSync, readlinkSync, realpathSync, rmSync } = process.getBuiltinModule('node:fs');
const data = dir + '/data';
const pidOf = () => { try { return Number(readFileSync(data + '/postmaster.pid', 'utf8').split('\\n')[0]) || 0; } catch { return 0; } };
const runs = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const ours = (pid) => { try { return readlinkSync('/proc/' + pid + '/cwd') === realpathSync(data); } catch { return false; } };
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const t = setInterval(() => {
  if (process.ppid === owner) return;
  clearInterval(t);
  let quiet = 0;
  for (let k = 0; k < 30 && quiet < 4; k++) {
    const pid = pidOf();
    if (!(pid > 0 && runs(pid) && ours(pid))) { quiet++; sleep(500); continue; }
    quiet = 0;
    spawnSync(cmd[0], cmd.slice(1), { stdio: 'ignore', timeout: 30000 });
    for (const [sig, wait] of [['SIGQUIT', 10000], ['SIGKILL', 5000]]) {
      if (!runs(pid)) break;
      try { process.kill(pid, sig); } catch {}
      for (let w = 0; w < wait / 100 && runs(pid); w++) sleep(100);
    }
  }
  if (quiet >= 4) rmSync(dir, { recursive: true, force: true });
}, 500);`;

/** The bin directory of the newest installed PostgreSQL, or null. */
export function findPgBin() {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(base, versions[0], 'bin') : null;
}

/** Install Debian's postgresql when it is missing. Returns the bin directory, or throws with the reason. */
export function ensurePostgres({ log = (s) => process.stderr.write(`${s}\n`) } = {}) {
  let bin = findPgBin();
  if (bin) return bin;
  log('PostgreSQL is not installed: installing Debian\'s postgresql (apt-get)');
  const sh = 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql';
  const r = spawnSync(isRoot ? 'sh' : 'sudo', isRoot ? ['-c', sh] : ['-n', 'sh', '-c', sh], { stdio: ['ignore', 'inherit', 'inherit'] });
  bin = findPgBin();
  if (!bin) throw new Error(`PostgreSQL cannot be installed (apt-get exit ${r.status ?? r.error?.message})`);
  return bin;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Start a cluster. Options: `settings` (extra `-c name=value` server settings; the default turns
 * fsync off: a throwaway cluster need not survive a power cut), `log`.
 */
export async function startCluster({ settings = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }, log } = {}) {
  const bin = ensurePostgres({ log });
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-pg-'));
  const data = join(dir, 'data');
  const user = isRoot ? ['runuser', '-u', 'postgres', '--'] : [];
  if (isRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  const run = (cmd, args) => {
    const all = [...user, join(bin, cmd), ...args];
    const r = spawnSync(all[0], all.slice(1), { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} failed (exit ${r.status ?? r.error?.message}): ${(r.stderr || r.stdout || '').trim().slice(-800)}`);
    return r;
  };
  let port = 0;
  let running = false;
  const opts = () => [
    `-p ${port}`, `-k ${dir}`, '-c listen_addresses=127.0.0.1', '-c max_connections=300',
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ].join(' ');
  const start = async () => {
    run('pg_ctl', ['-D', data, '-o', opts(), '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
    running = true;
  };
  const stopSync = () => {
    if (!running) return;
    running = false;
    const all = [...user, join(bin, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop'];
    spawnSync(all[0], all.slice(1), { stdio: 'ignore', cwd: dir });
  };
  // The reaper (a detached process of its own) stops the cluster and removes its directory when this process
  // is gone without doing it: killed by a signal, SIGKILL included, or by a closed pipe. Exit handlers cannot
  // cover those; a cluster left running holds a port and its files until the machine restarts.
  const reaper = spawn(process.execPath, ['-e', REAPER, String(process.pid), JSON.stringify([...user, join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']), dir],
    { detached: true, stdio: 'ignore' });
  reaper.on('error', (e) => log?.(`the cluster's reaper did not start: ${e.message}`));
  reaper.unref();
  const dismiss = () => { try { reaper.kill(); } catch { /* gone */ } };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '-N']);
    port = await freePort();
    await start();
  } catch (e) {
    stopSync();
    rmSync(dir, { recursive: true, force: true });
    dismiss();
    throw e;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let seq = 0;
  return {
    url, port, dir, bin,
    /** The reaper's PID (tests check that a stop dismisses it). */
    reaperPid: reaper.pid,
    /** URL of a database of that name on this cluster. */
    urlOf: (db) => `postgres://postgres@127.0.0.1:${port}/${db}`,
    /** Create a fresh database (default: a unique name) and return its URL. */
    async createDatabase(name = `db_${process.pid}_${Date.now().toString(36)}_${++seq}`) {
      const r = spawnSync(join(bin, 'psql'), ['-X', '-q', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-c', `CREATE DATABASE "${name}"`], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`CREATE DATABASE failed: ${r.stderr}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    /** Stop the server (fast shutdown: connections are cut), keeping the data. */
    pause() { stopSync(); },
    /** Start it again after pause(), on the same port. */
    async resume() { await start(); },
    stopSync() {
      stopSync();
      rmSync(dir, { recursive: true, force: true });
      dismiss();
    },
    async stop() {
      stopSync();
      rmSync(dir, { recursive: true, force: true });
      dismiss();
    },
  };
}

// Manual use: `node scripts/pg-cluster.mjs` prints a URL and keeps the cluster until Ctrl-C.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const c = await startCluster();
  const bye = () => { c.stopSync(); process.exit(0); };
  process.on('SIGINT', bye);
  process.on('SIGTERM', bye);
  process.stdout.write(`${c.url}\n`);
  setInterval(() => {}, 1 << 30);
}
