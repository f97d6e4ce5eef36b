// node bench/thin.ts [PATH…] — the fixed CPU cost the thin path (electron/http/fast.ts, D190) removes,
// measured in one process: two apps over the same store, one with the thin path and one without
// (`thinPath: false`, every request through Fastify), both listening on loopback, driven by the same
// minimal keep-alive client (raw sockets, 4 connections) in alternating blocks. The process's CPU time
// per request counts client + server + kernel; the client and the socket writes are the same for both,
// so the difference between the apps is the server-side difference. On a shared, busy machine the
// per-block figures swing; the median of the paired differences (thin − Fastify, block by block) is the
// figure. Response cache off (CACHE=MB to turn it on). DIR=data directory of bench/profile.ts's dataset
// (default /tmp/prof-data), ROUNDS (default 15), N=requests per block (default 2000).

import { connect, type AddressInfo, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp } from '../electron/http/app.ts';
import { SqliteStore } from '../electron/store/sqlite.ts';
import { DB_FILE } from '../electron/server.ts';

const fixture = JSON.parse(readFileSync('tests/fixtures/account.json', 'utf8'));
const admin = fixture.people.find((p: { administrator?: boolean }) => p.administrator);
const auth = `Basic ${Buffer.from(`${admin['user-name']}:${admin.password}`).toString('base64')}`;
const store = new SqliteStore(join(process.env.DIR ?? '/tmp/prof-data', DB_FILE));
const cacheBytes = Number(process.env.CACHE ?? 0) * 1024 * 1024;
const thin = await buildApp({ store, responseCacheBytes: cacheBytes });
const full = await buildApp({ store, responseCacheBytes: cacheBytes, thinPath: false });
const ports = new Map<typeof thin, number>();
for (const app of [thin, full]) {
  await app.listen({ host: '127.0.0.1', port: 0 });
  ports.set(app, (app.server.address() as AddressInfo).port);
}
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const N = Number(process.env.N ?? 2000);
const CONNECTIONS = 4;

/** One keep-alive connection sending `count` requests one after the other. */
function drive(port: number, path: string, count: number): Promise<void> {
  const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth}\r\n\r\n`, 'latin1');
  return new Promise((resolve, reject) => {
    const s: Socket = connect(port, '127.0.0.1');
    let left = count;
    let buf: Buffer = Buffer.alloc(0);
    s.setNoDelay(true);
    s.on('error', reject);
    s.on('connect', () => s.write(request));
    s.on('data', (d: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const m = /\r\nContent-Length: (\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
        if (!m) { reject(new Error(`no Content-Length: ${buf.subarray(0, end).toString('latin1')}`)); return; }
        const total = end + 4 + Number(m[1]);
        if (buf.length < total) return;
        if (!buf.subarray(0, 12).toString('latin1').endsWith('200')) { reject(new Error(buf.subarray(0, end).toString('latin1'))); return; }
        buf = buf.subarray(total);
        if (--left === 0) { s.end(); resolve(); return; }
        s.write(request);
      }
    });
  });
}

async function block(app: typeof thin, path: string): Promise<number> {
  const port = ports.get(app)!;
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: CONNECTIONS }, () => drive(port, path, N / CONNECTIONS)));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / N;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const paths = process.argv.slice(2).length ? process.argv.slice(2) : ['/todo_items/1.xml', '/time_entries/1.xml', '/me.xml'];
process.stdout.write(`CPU µs per request (client + server + kernel, one process), ${ROUNDS} rounds of ${N} requests, response cache ${cacheBytes ? 'on' : 'off'}\n`);
for (const path of paths) {
  await block(thin, path); await block(full, path); // warm-up
  const t: number[] = [], f: number[] = [], d: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which app goes first.
    const [a, b] = i % 2 ? [await block(full, path), await block(thin, path)].reverse() : [await block(thin, path), await block(full, path)];
    t.push(a); f.push(b); d.push(a - b);
  }
  process.stdout.write(`${path.padEnd(24)} thin ${median(t).toFixed(1)} (min ${Math.min(...t).toFixed(1)})  Fastify ${median(f).toFixed(1)} (min ${Math.min(...f).toFixed(1)})  thin − Fastify: median ${median(d).toFixed(1)} µs\n`);
}
await thin.close();
await full.close();
await store.close();
