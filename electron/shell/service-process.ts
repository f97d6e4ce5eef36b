// The local service in a process of its own: a StartService that runs electron/shell/service-host.ts on a
// Node that has node:sqlite (the project's Node 24), for an Electron whose own Node has none (Electron 33's
// Node 20, the runtime of the real-Electron tests, D259). The shipped app does not use it: electron/main.ts
// runs the service in the main process. Nothing here imports the store.
//
// The two talk in JSON lines: the host's stdout carries `ready` (url, token) or `error` (message, code: an
// EADDRINUSE lets the shell fall back to another port), the service's log lines, the sync engine's token
// vault calls (answered here from the shell's encrypted secrets, D110) and the answers to `export` and
// `close`; its stdin carries the start options and those commands. When this process goes away (its stdin
// ends), the host closes the service like a quit does and exits.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { LocalService, StartService } from './port.ts';

export interface OutOfProcessOptions {
  /** A Node with node:sqlite (Node ≥ 22.13): the project's Node 24. */
  readonly node: string;
  /** electron/shell/service-host.ts (Node 24 runs it from source). */
  readonly host: string;
  readonly uiDir: string | null;
  readonly demo: boolean;
  /** How long the host may take to listen (default 30 s). */
  readonly startTimeoutMs?: number;
}

/** A message from the host (service-host.ts). */
export type HostMessage =
  | { readonly t: 'ready'; readonly url: string; readonly token: string }
  | { readonly t: 'error'; readonly message: string; readonly code?: string }
  | { readonly t: 'log'; readonly level: 'warn' | 'error'; readonly msg: string; readonly detail?: { name: string; message: string; stack?: string } }
  | { readonly t: 'vault'; readonly id: number; readonly op: 'read' | 'write' | 'remove'; readonly token?: string }
  | { readonly t: 'reply'; readonly id: number; readonly error?: string; readonly drained?: boolean };

/** A message to the host. */
export type HostCommand =
  | { readonly t: 'start'; readonly dataDir: string; readonly port: number; readonly uiDir: string | null; readonly demo: boolean }
  | { readonly t: 'export'; readonly id: number; readonly file: string }
  | { readonly t: 'close'; readonly id: number; readonly graceMs: number }
  | { readonly t: 'vault-reply'; readonly id: number; readonly value?: string | null; readonly error?: string };

const asError = (d: { name: string; message: string; stack?: string }): Error => Object.assign(new Error(d.message), { name: d.name, stack: d.stack });

export function outOfProcessStarter(o: OutOfProcessOptions): StartService {
  return ({ dataDir, port, tokenVault, log }) => new Promise<LocalService>((resolve, reject) => {
    const child = spawn(o.node, [o.host], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ELECTRON_RUN_AS_NODE: undefined } });
    let gone: { code: number | null } | null = null;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => { gone = { code }; r(code); }));
    // A host that is gone fails a write with EPIPE: its exit (below) reports it, so that error is dropped.
    // Unhandled, that error is an uncaught exception in Electron's main process (a modal box; the app hangs).
    child.stdin.on('error', (e) => { if ((e as NodeJS.ErrnoException).code !== 'EPIPE') log?.warn('service process: its input failed', e); });
    const send = (c: HostCommand) => {
      // Not started (ENOENT: `error` reports it), or gone (`exit` does).
      if (child.pid !== undefined && gone === null && child.stdin.writable) child.stdin.write(`${JSON.stringify(c)}\n`);
    };
    const replies = new Map<number, (m: Extract<HostMessage, { t: 'reply' }>) => void>();
    let nextId = 1;
    let started = false;
    const startTimer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service process did not start within ${(o.startTimeoutMs ?? 30_000) / 1000} s`));
    }, o.startTimeoutMs ?? 30_000);
    child.once('error', (e) => { clearTimeout(startTimer); reject(e); });
    void exited.then((code) => {
      clearTimeout(startTimer);
      for (const r of replies.values()) r({ t: 'reply', id: 0, error: `the service process exited (${code})` });
      replies.clear();
      if (!started) reject(new Error(`the service process exited before it listened (exit ${code})`));
      else if (!closing) log?.error(`the service process exited unexpectedly (exit ${code})`);
    });
    let closing = false;
    createInterface({ input: child.stderr }).on('line', (line) => { if (line.trim()) log?.warn(`service process: ${line}`); });
    createInterface({ input: child.stdout }).on('line', (line) => {
      let m: HostMessage;
      try {
        m = JSON.parse(line) as HostMessage;
      } catch {
        log?.warn(`service process: ${line}`);
        return;
      }
      if (m.t === 'log') log?.[m.level](m.msg, m.detail ? asError(m.detail) : undefined);
      else if (m.t === 'vault') {
        const op = m.op === 'read' ? tokenVault.read() : m.op === 'write' ? tokenVault.write(m.token ?? '').then(() => null) : tokenVault.remove().then(() => null);
        op.then((value) => send({ t: 'vault-reply', id: m.id, value }), (e: unknown) => send({ t: 'vault-reply', id: m.id, error: (e as Error).message }));
      } else if (m.t === 'reply') {
        replies.get(m.id)?.(m);
        replies.delete(m.id);
      } else if (m.t === 'error') {
        clearTimeout(startTimer);
        reject(Object.assign(new Error(m.message), m.code ? { code: m.code } : {}));
      } else if (m.t === 'ready') {
        clearTimeout(startTimer);
        started = true;
        const call = (make: (id: number) => HostCommand) => new Promise<Extract<HostMessage, { t: 'reply' }>>((res, rej) => {
          if (gone) { rej(new Error(`the service process exited (${gone.code})`)); return; }
          const id = nextId++;
          replies.set(id, (r) => (r.error ? rej(new Error(r.error)) : res(r)));
          send(make(id));
        });
        resolve({
          url: m.url,
          token: m.token,
          async exportBackup(file) { await call((id) => ({ t: 'export', id, file })); },
          async close({ graceMs }) {
            closing = true;
            const r = await call((id) => ({ t: 'close', id, graceMs }));
            // The host exits once the store is closed; it is stopped if it does not.
            const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
            await exited;
            clearTimeout(kill);
            return { drained: r.drained ?? false };
          },
        });
      }
    });
    send({ t: 'start', dataDir, port, uiDir: o.uiDir, demo: o.demo });
  });
}
