// bench:sync's clone section (issue #26, D346): the real CLI as a team server and as a replica cloning it,
// a counting proxy between them (requests, feed pages; a SIGKILL of the replica at the n-th feed request),
// the replica's peak RSS (VmHWM) and its sync status.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';

/** A `bivouac serve` child; resolves once it listens. */
export interface Served { child: ChildProcess; url: string; exited: Promise<void>; kill(): Promise<void>; stderr(): string }
export function serveChild(bin: string, dataDir: string, args: string[], env: Record<string, string> = {}): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--no-demo', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env },
    });
    let out = '', err = '';
    const exited = new Promise<void>((r) => child.on('close', () => r()));
    child.stderr.on('data', (b: Buffer) => { err += b.toString(); });
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) resolve({ child, url: m[1], exited, kill: () => { child.kill('SIGKILL'); return exited; }, stderr: () => err });
    });
    void exited.then(() => reject(new Error(`serve exited before listening: ${err}`)));
  });
}

/** Peak resident memory of a process (MiB), from /proc (Linux). */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** A streaming proxy that counts requests and feed requests; `killAtFeed` runs `kill` when the n-th feed request arrives (unanswered). */
export interface Counting { url: string; requests: number; /** performance.now() of the first request, 0 before. */ firstAt: number; /** Time the team server took over all requests (asked → answer's end), and the feed's share of it. */ remoteMs: number; feedMs: number; paths: string[]; /** A feed answer said `more: false` (a run reads at most 250 pages: a large clone takes several runs). */ feedEnded: boolean; feed: number; killAtFeed: { n: number; kill: () => void } | null; close(): Promise<void> }
export async function countingProxy(target: string): Promise<Counting> {
  const t = new URL(target);
  const c: Counting = { url: '', requests: 0, firstAt: 0, remoteMs: 0, feedMs: 0, paths: [], feedEnded: false, feed: 0, killAtFeed: null, close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
  const server: Server = createServer((req, res) => {
    if (!c.requests++) c.firstAt = performance.now();
    const asked = performance.now();
    const isFeed = (req.url ?? '').startsWith('/sync/changes.json');
    if (process.env.BENCH_CLONE_PATHS) c.paths.push(`${req.method} ${req.url}`);
    if (isFeed) {
      c.feed++;
      const k = c.killAtFeed;
      if (k && c.feed >= k.n) { c.killAtFeed = null; k.kill(); req.socket.destroy(); return; }
    }
    const out = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      const body: Buffer[] = [];
      if (isFeed) r.on('data', (b: Buffer) => body.push(b));
      r.on('end', () => {
        const d = performance.now() - asked;
        c.remoteMs += d;
        if (!isFeed) return;
        c.feedMs += d;
        if (r.statusCode === 200 && (JSON.parse(Buffer.concat(body).toString('utf8')) as { more?: boolean }).more === false) c.feedEnded = true;
      });
      r.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return c;
}

/** Until the feed's end was read and the replica's sync is idle after a success (the clone done), reading its status every 100 ms. */
export async function cloneSettled(s: Served, auth: string, proxy: Counting, timeoutMs = Number(process.env.BENCH_CLONE_SETTLE_MS ?? 1_800_000)): Promise<void> {
  const until = Date.now() + timeoutMs;
  type Status = { state: string; lastSuccessAt: string | null } | null;
  let st: Status = null;
  while (Date.now() < until) {
    if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`the replica exited (${s.child.exitCode ?? s.child.signalCode}): ${s.stderr()}`);
    st = await fetch(`${s.url}/sync/status`, { headers: { authorization: auth } }).then((r) => r.json()).catch(() => null) as Status;
    if (proxy.feedEnded && st?.state === 'idle' && st.lastSuccessAt) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the clone did not settle: its status ${JSON.stringify(st)}, the feed ${proxy.feedEnded ? 'ended' : 'not ended'}; the replica's stderr: ${s.stderr().slice(-4000)}`);
}
