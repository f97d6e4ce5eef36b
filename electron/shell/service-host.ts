// The local service in a process of its own (service-process.ts starts it on the project's Node 24, which runs
// this file from source): serviceStarter() as in the shipped app's main process, driven over JSON lines on
// stdin/stdout (the messages are typed in service-process.ts). When stdin ends (the app went away, however it
// ended) the service is closed as on a quit, so that a write in flight still commits, and the process exits.

import { createInterface } from 'node:readline';
import type { TokenVault } from '../sync/token-vault.ts';
import type { LocalService } from './port.ts';
import type { HostCommand, HostMessage } from './service-process.ts';
import { serviceStarter } from './service.ts';

/** Runs the host on this process's stdin and stdout (all of its state lives in this call). */
function runHost(): void {
  const send = (m: HostMessage) => { process.stdout.write(`${JSON.stringify(m)}\n`); };
  const detail = (d: unknown) => (d instanceof Error ? { name: d.name, message: d.message, stack: d.stack } : d === undefined ? undefined : { name: 'Detail', message: String(d) });

  const vaultCalls = new Map<number, { resolve: (v: string | null) => void; reject: (e: Error) => void }>();
  let nextVault = 1;
  const vaultCall = (op: 'read' | 'write' | 'remove', token?: string) => new Promise<string | null>((resolve, reject) => {
    const id = nextVault++;
    vaultCalls.set(id, { resolve, reject });
    send({ t: 'vault', id, op, ...(token !== undefined ? { token } : {}) });
  });
  /** The shell's encrypted secrets, over the pipe (D110). */
  const vault: TokenVault = {
    read: () => vaultCall('read'),
    write: async (token) => { await vaultCall('write', token); },
    remove: async () => { await vaultCall('remove'); },
  };
  const log = {
    warn: (msg: string, d?: unknown) => send({ t: 'log', level: 'warn', msg, detail: detail(d) }),
    error: (msg: string, d?: unknown) => send({ t: 'log', level: 'error', msg, detail: detail(d) }),
  };
  process.on('warning', (w) => log.warn(`process warning: ${w.name}: ${w.message}`));

  let service: LocalService | null = null;
  let closing: Promise<{ drained: boolean }> | null = null;
  const close = (graceMs: number) => (closing ??= service ? service.close({ graceMs }) : Promise.resolve({ drained: true }));

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let c: HostCommand;
    try {
      c = JSON.parse(line) as HostCommand;
    } catch {
      return;
    }
    if (c.t === 'start') {
      serviceStarter({ uiDir: c.uiDir, demo: c.demo })({ dataDir: c.dataDir, port: c.port, tokenVault: vault, log }).then((s) => {
        service = s;
        send({ t: 'ready', url: s.url, token: s.token });
      }, (e: unknown) => {
        send({ t: 'error', message: (e as Error).message, code: (e as NodeJS.ErrnoException).code });
        process.exitCode = 1;
        lines.close();
      });
    } else if (c.t === 'vault-reply') {
      const p = vaultCalls.get(c.id);
      vaultCalls.delete(c.id);
      if (c.error !== undefined) p?.reject(new Error(c.error));
      else p?.resolve(c.value ?? null);
    } else if (c.t === 'export') {
      if (!service) send({ t: 'reply', id: c.id, error: 'the service is not running' });
      else service.exportBackup(c.file).then(() => send({ t: 'reply', id: c.id }), (e: unknown) => send({ t: 'reply', id: c.id, error: (e as Error).message }));
    } else if (c.t === 'close') {
      close(c.graceMs).then((r) => {
        send({ t: 'reply', id: c.id, drained: r.drained });
        process.exit(0);
      }, (e: unknown) => {
        send({ t: 'reply', id: c.id, error: (e as Error).message });
        process.exit(1);
      });
    }
  });
  // The app is gone (its end of the pipe closed): stop as a quit would, then exit.
  lines.on('close', () => {
    void close(5000).finally(() => process.exit(process.exitCode ?? 0));
  });
}

runHost();
