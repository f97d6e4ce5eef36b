// The local service in a process of its own (electron/shell/service-process.ts → service-host.ts), as the
// real-Electron tests' entry runs it beside Electron 33 (D259): here on this Node, which has node:sqlite.

import { describe, it, expect, afterEach } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
});
