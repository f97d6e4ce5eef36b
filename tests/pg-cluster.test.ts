// The throwaway PostgreSQL cluster of the tests and benches (scripts/pg-cluster.mjs) must not outlive the
// process that started it, even when that process is killed before it can stop it (a signal, SIGKILL, a
// pipe closed under it): a cluster left behind holds a port and its files until the machine restarts.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pgSkipReason } from './pg.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const listening = (port: number): Promise<boolean> => new Promise((res) => {
  const s = connect({ host: '127.0.0.1', port });
  s.once('connect', () => { s.destroy(); res(true); });
  s.once('error', () => res(false));
});

describe.skipIf(pgSkipReason())('the tests\' PostgreSQL cluster', () => {
  it('is stopped and removed when the process that started it is killed with SIGKILL', async () => {
    const script = `
      import { startCluster } from ${JSON.stringify(pathToFileURL(join(ROOT, 'scripts', 'pg-cluster.mjs')).href)};
      const c = await startCluster({ log: () => undefined });
      process.stdout.write(JSON.stringify({ port: c.port, dir: c.dir, bin: c.bin }) + '\\n');
      setInterval(() => undefined, 1 << 30);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const info = await new Promise<{ port: number; dir: string; bin: string }>((res, rej) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes('\n')) res(JSON.parse(out.split('\n')[0])); });
      child.once('exit', (code) => rej(new Error(`the child exited (${code}) before its cluster started`)));
    });
    try {
      expect(await listening(info.port)).toBe(true);
      child.kill('SIGKILL');
      let up = true, there = true;
      for (let k = 0; k < 120 && (up || there); k++) {
        await new Promise((r) => setTimeout(r, 250));
        up = await listening(info.port);
        there = existsSync(info.dir);
      }
      expect({ up, there }).toEqual({ up: false, there: false });
    } finally {
      // Whatever the outcome, nothing of this test stays behind.
      child.kill('SIGKILL');
      if (existsSync(join(info.dir, 'data', 'postmaster.pid'))) {
        const user = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
        const all = [...user, join(info.bin, 'pg_ctl'), '-D', join(info.dir, 'data'), '-m', 'immediate', '-w', 'stop'];
        spawnSync(all[0], all.slice(1), { stdio: 'ignore' });
        spawnSync('rm', ['-rf', info.dir]);
      }
    }
  }, 60_000);
});
