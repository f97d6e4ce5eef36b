// node bench/auth-timing.ts — user-name enumeration by timing (issue #6), measured side by side:
// an unknown user name, a known one with a wrong password, and a wrong token, each answered 401
// by the real app (Fastify inject over an in-memory store with the fixture), interleaved so the
// machine's load hits all three alike. Prints medians and the ratio unknown / wrong password
// (1.0 means no signal). Not part of `npm test`.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../electron/http/app.ts';
import { SqliteStore } from '../electron/store/sqlite.ts';
import { importSeed } from '../electron/service/account.ts';

const FIXTURE = JSON.parse(readFileSync(fileURLToPath(new URL('../tests/fixtures/account.json', import.meta.url)), 'utf8'));
const store = new SqliteStore(':memory:');
await importSeed(store, FIXTURE);
const app = await buildApp({ store, responseCacheBytes: 0 });
await app.ready();
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
const cases: Record<string, () => string> = {
  'unknown user name': () => basic(`nobody-${Math.random()}`, 'guess'),
  'known user, wrong password': () => basic('ada', `guess-${Math.random()}`),
  'wrong token': () => basic(Math.random().toString(16).slice(2).padEnd(40, '0'), 'X'),
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const ROUNDS = Number(process.env.ROUNDS ?? 30);
for (let i = 0; i < ROUNDS + 2; i++) {
  for (const [k, make] of Object.entries(cases)) {
    const t0 = performance.now();
    const r = await app.inject({ method: 'GET', url: '/me.xml', headers: { host: '127.0.0.1', authorization: make() } });
    const ms = performance.now() - t0;
    if (r.statusCode !== 401) throw new Error(`${k}: expected 401, got ${r.statusCode}`);
    if (i >= 2) times[k].push(ms); // the first rounds warm up (and create the dummy hash)
  }
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const base = median(times['known user, wrong password']);
for (const [k, a] of Object.entries(times)) {
  process.stdout.write(`${k.padEnd(28)} median ${median(a).toFixed(1)} ms  ratio to wrong password ${(median(a) / base).toFixed(2)}\n`);
}
await app.close();
await store.close();
