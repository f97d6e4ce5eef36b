// What the tools that probe one service under the mixed workload share (bench/classes.ts, tail.ts,
// statements.ts): a work directory with a copy of bench:api's dataset, removed on every exit with the
// services started in it; starting `serve` on it (response cache off) and waiting for its address; asking
// a preload loaded into it (`--import`) for what it recorded, over the IPC channel, numbered so that a
// late answer cannot pass for the next.

import { mixedPoolsOf, type Pools } from '../mixed.ts';
import { benchAuth, benchDataset, cliEntry } from '../dataset.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Probe {
  /** The copy of the dataset the service runs on. */
  readonly dir: string;
  readonly pools: Pools;
  readonly headers: Record<string, string>;
  /** Starts `serve` on `dir`: Node's options before the entry, `serve`'s after; stdout piped, an IPC channel. */
  start(nodeFlags: readonly string[], serveArgs?: readonly string[]): ChildProcess;
}

/**
 * A work directory named `bivouac-<name>-…` holding a copy of bench:api's dataset (DATA: a directory holding it
 * already; else generated there, ~10 s). It and every service started through it go when the process exits,
 * also on SIGINT, SIGTERM and SIGHUP.
 */
export async function probe(name: string): Promise<Probe> {
  const work = mkdtempSync(join(tmpdir(), `bivouac-${name}-`));
  const children: ChildProcess[] = [];
  process.once('exit', () => { for (const c of children) c.kill('SIGKILL'); rmSync(work, { recursive: true, force: true }); });
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) process.once(sig, () => process.exit(code));
  const source = process.env.DATA ?? join(work, 'source');
  await benchDataset(source);
  const dir = join(work, 'data');
  cpSync(source, dir, { recursive: true });
  return {
    dir, pools: await mixedPoolsOf(dir), headers: { authorization: benchAuth() },
    start(nodeFlags, serveArgs = []) {
      const child = spawn(process.execPath, [...nodeFlags, cliEntry(ROOT), 'serve', '--port', '0', '--data-dir', dir, '--no-demo', '--log-level', 'warn',
        '--response-cache', '0', ...serveArgs], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], cwd: ROOT });
      children.push(child);
      return child;
    },
  };
}

/** The service's address, from its "running at" line (each chunk of its output also goes to `onData`). */
export function address(child: ChildProcess, onData?: (d: Buffer) => void): Promise<string> {
  return new Promise<string>((res, rej) => {
    let text = '';
    let found = false;
    const late = setTimeout(() => rej(new Error('the service did not start within 60 s')), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      onData?.(d);
      if (found) return;
      text += d.toString();
      const m = /running at (http:\/\/[^/\s]+)/.exec(text);
      if (m) { found = true; clearTimeout(late); res(m[1]); }
    });
    child.once('exit', (code) => { clearTimeout(late); rej(new Error(`the service exited with ${code}`)); });
  });
}

/**
 * Asks the preload in `child` for what it recorded since the last asking: sends `{ [key]: n }` and waits (5 s at
 * most) for the message whose `key` is n.
 */
export function asker<T>(child: ChildProcess, key: string): () => Promise<T> {
  const answers = new Map<number, T>();
  child.on('message', (m: Record<string, unknown>) => { if (typeof m?.[key] === 'number') answers.set(m[key], m as T); });
  let asked = 0;
  return async () => {
    const n = ++asked;
    child.send({ [key]: n });
    for (let t = 0; t < 250 && !answers.has(n); t++) await new Promise((r) => setTimeout(r, 20));
    const a = answers.get(n);
    if (a === undefined) throw new Error('the service did not answer within 5 s');
    answers.delete(n);
    return a;
  };
}
