// The throwaway PostgreSQL cluster of the tests and benches (scripts/pg-cluster.mjs) must not outlive the
// process that started it, even when that process is killed before it can stop it (a signal, SIGKILL, a
// pipe closed under it): a cluster left behind holds a port and its files until the machine restarts.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { pgSkipReason } from '../support/pg.ts';
// @ts-expect-error: a plain ES module without types
import { startCluster } from '../../scripts/pg-cluster.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

const listening = (port: number): Promise<boolean> => new Promise((res) => {
  const s = connect({ host: '127.0.0.1', port });
  s.once('connect', () => { s.destroy(); res(true); });
  s.once('error', () => res(false));
});

const gone = async (pid: number): Promise<boolean> => {
  for (let k = 0; k < 40; k++) {
    try { process.kill(pid, 0); } catch { return true; }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
};

describe.skipIf(pgSkipReason())('the tests\' PostgreSQL cluster', () => {
  it('is stopped and removed when the process that started it is killed with SIGKILL', async () => {
    // The child also ends when its stdin closes, so that it cannot outlive this test whatever happens here.
    const script = `
      import { startCluster } from ${JSON.stringify(pathToFileURL(join(ROOT, 'scripts', 'pg-cluster.mjs')).href)};
      process.stdin.on('end', () => process.exit(0)).resume();
      const c = await startCluster({ log: () => undefined });
      process.stdout.write(JSON.stringify({ port: c.port, dir: c.dir, bin: c.bin }) + '\\n');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    let info: { port: number; dir: string; bin: string } | undefined;
    try {
      info = await new Promise<{ port: number; dir: string; bin: string }>((res, rej) => {
        let out = '';
        const timer = setTimeout(() => rej(new Error(`no cluster after 45 s; output: ${out}`)), 45_000);
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (!out.includes('\n')) return;
          clearTimeout(timer);
          try { res(JSON.parse(out.split('\n')[0])); } catch (e) { rej(e as Error); }
        });
        child.once('exit', (code) => { clearTimeout(timer); rej(new Error(`the child exited (${code}) before its cluster started`)); });
      });
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
      if (info && existsSync(info.dir)) {
        const user = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
        const all = [...user, join(info.bin, 'pg_ctl'), '-D', join(info.dir, 'data'), '-m', 'immediate', '-w', 'stop'];
        spawnSync(all[0], all.slice(1), { stdio: 'ignore' });
        rmSync(info.dir, { recursive: true, force: true });
      }
    }
  }, 90_000);

  it('dismisses its reaper when it is stopped, by stop() and by stopSync() (the exit handlers\' way)', async () => {
    const started: { reaperPid: number; dir: string; stop(): Promise<void>; stopSync(): void }[] = [];
    try {
      started.push(await startCluster({ log: () => undefined }));
      started.push(await startCluster({ log: () => undefined }));
      const [a, b] = started;
      expect(await gone(a.reaperPid)).toBe(false); // running while its cluster does
      await a.stop();
      b.stopSync();
      expect(await gone(a.reaperPid)).toBe(true);
      expect(await gone(b.reaperPid)).toBe(true);
      expect([existsSync(a.dir), existsSync(b.dir)]).toEqual([false, false]);
    } finally {
      for (const c of started) await c.stop();
    }
  }, 90_000);
});
