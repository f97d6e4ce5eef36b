// The local service in a process of its own (electron/shell/service-process.ts → service-host.ts), as the
// real-Electron tests' entry runs it beside Electron 33 (D259): here on this Node, which has node:sqlite.

import { describe, it, expect, afterEach } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outOfProcessStarter } from '../../../electron/shell/service-process.ts';
import { MemoryTokenVault } from '../../../electron/sync/token-vault.ts';

const host = join(import.meta.dirname, '../../..', 'electron', 'shell', 'service-host.ts');
const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });
const tmp = () => { const d = mkdtempSync(join(tmpdir(), 'bivouac-svc-proc-')); dirs.push(d); return d; };

describe('the service out of process', () => {
  it('starts on the data folder, answers with the owner\'s token, exports a backup, and closes (then the process is gone)', async () => {
    const dir = tmp();
    const lines: string[] = [];
    const log = { warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) };
    const start = outOfProcessStarter({ node: process.execPath, host, uiDir: null, demo: true });
    const svc = await start({ dataDir: join(dir, 'data'), port: 0, tokenVault: new MemoryTokenVault(), log });
    expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(svc.token).toMatch(/^[0-9a-f]{40}$/);
    const me = await fetch(`${svc.url}/me.xml`, { headers: { Authorization: `Basic ${Buffer.from(`${svc.token}:X`).toString('base64')}` } });
    expect(me.status).toBe(200);
    expect(existsSync(join(dir, 'data', 'bivouac.sqlite'))).toBe(true);
    await svc.exportBackup(join(dir, 'backup.json'));
    expect(JSON.parse(readFileSync(join(dir, 'backup.json'), 'utf8'))).toBeTypeOf('object');
    expect(await svc.close({ graceMs: 1000 })).toEqual({ drained: true });
    await expect(fetch(`${svc.url}/health`)).rejects.toThrow();
    expect(lines.filter((l) => l.startsWith('error'))).toEqual([]);
  });

  it('a taken port fails the start with EADDRINUSE (the shell then takes another port)', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen({ port: 0, host: '127.0.0.1' }, () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const start = outOfProcessStarter({ node: process.execPath, host, uiDir: null, demo: true });
      await expect(start({ dataDir: join(tmp(), 'data'), port, tokenVault: new MemoryTokenVault() })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      blocker.close();
    }
  });

  it('a host that exits before it listens fails the start with its exit code', async () => {
    const start = outOfProcessStarter({ node: '/bin/false', host, uiDir: null, demo: true });
    await expect(start({ dataDir: join(tmp(), 'data'), port: 0, tokenVault: new MemoryTokenVault() }))
      .rejects.toThrow('the service process exited before it listened (exit 1)');
  });

  it('a write to a host that no longer reads (EPIPE) raises nothing: the host\'s exit says what happened', async () => {
    // The host closes its input, then asks for the token: the answer is written to a pipe nobody reads. Unhandled,
    // that EPIPE was an uncaught exception in Electron's main process (a modal box, the app hung, nothing logged).
    const dir = tmp();
    const fakeHost = join(dir, 'host.mjs');
    writeFileSync(fakeHost, `import { closeSync } from 'node:fs';
closeSync(0);
console.log(JSON.stringify({ t: 'vault', id: 1, op: 'read' }));
setTimeout(() => process.exit(1), 500);`);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => { uncaught.push(e); };
    process.on('uncaughtException', onUncaught);
    try {
      const lines: string[] = [];
      const log = { warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) };
      let asked = 0;
      const tokenVault = Object.assign(new MemoryTokenVault(), { read: async () => { asked++; return null; } });
      await expect(outOfProcessStarter({ node: process.execPath, host: fakeHost, uiDir: null, demo: true })({ dataDir: join(dir, 'data'), port: 0, tokenVault, log }))
        .rejects.toThrow('the service process exited before it listened (exit 1)');
      expect(asked).toBe(1);
      expect(uncaught).toEqual([]);
      expect(lines).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('a Node that is not there fails the start with ENOENT, and nothing else is logged', async () => {
    const lines: string[] = [];
    const log = { warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) };
    const start = outOfProcessStarter({ node: join(tmp(), 'no-node'), host, uiDir: null, demo: true });
    await expect(start({ dataDir: join(tmp(), 'data'), port: 0, tokenVault: new MemoryTokenVault(), log })).rejects.toMatchObject({ code: 'ENOENT' });
    await new Promise((r) => setTimeout(r, 50));
    expect(lines).toEqual([]);
  });

  it('a host that exits after it listened: logged, and a later export or close fails at once (no write to a gone process, no wait)', async () => {
    const dir = tmp();
    const fakeHost = join(dir, 'host.mjs'); // listens (says so), then exits
    writeFileSync(fakeHost, `process.stdin.once('data', () => { console.log(JSON.stringify({ t: 'ready', url: 'http://127.0.0.1:9', token: 'x' })); process.exit(3); });`);
    const lines: string[] = [];
    const log = { warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) };
    const svc = await outOfProcessStarter({ node: process.execPath, host: fakeHost, uiDir: null, demo: true })({ dataDir: join(dir, 'data'), port: 0, tokenVault: new MemoryTokenVault(), log });
    await expect.poll(() => lines).toEqual(['error the service process exited unexpectedly (exit 3)']);
    await expect(svc.exportBackup(join(dir, 'backup.json'))).rejects.toThrow('the service process exited (3)');
    await expect(svc.close({ graceMs: 0 })).rejects.toThrow('the service process exited (3)');
  });
});
