// The local service as the shell starts it: electron/server.ts's serve() on <userData>/data, without
// the plain-text token files (the shell keeps the local and the remote token in its encrypted secrets,
// D110), plus the backup export.

import { writeFile, rename } from 'node:fs/promises';
import { serve, ownerToken } from '../server.ts';
import { exportAccount } from '../service/account.ts';
import type { LocalService, StartService } from './port.ts';
import type { Log } from './log.ts';

/**
 * The service's log lines (pino's JSON, one per write) into the shell's log (D235): a packaged app's stdout is
 * shown nowhere, and the service logs there what it cannot answer for (an unexpected 500, a failed
 * housekeeping). Level 50 and above as errors, with the error's class, message and stack; the rest as warnings
 * (the service logs from warn up); a line that is not JSON as it is. The log redacts secrets (log.ts).
 */
export function serviceLog(log: Pick<Log, 'warn' | 'error'>): { write(line: string): void } {
  return {
    write(text: string) {
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        let o: { level?: unknown; msg?: unknown; err?: { type?: unknown; message?: unknown; stack?: unknown } } | null = null;
        try {
          o = JSON.parse(line);
        } catch { /* written as it is, below */ }
        if (o === null || typeof o !== 'object') {
          log.warn(`service: ${line}`);
          continue;
        }
        let msg = `service: ${typeof o.msg === 'string' ? o.msg : line}`;
        let detail: Error | undefined;
        if (o.err && typeof o.err === 'object') {
          detail = new Error(String(o.err.message ?? ''));
          detail.name = typeof o.err.type === 'string' ? o.err.type : 'Error'; // pino's `type`: the error's class
          detail.stack = typeof o.err.stack === 'string' ? o.err.stack : undefined;
          if (o.msg === detail.message) msg = 'service:'; // the log writes the error's own message after it
        }
        if (typeof o.level === 'number' && o.level >= 50) log.error(msg, detail);
        else log.warn(msg, detail);
      }
    },
  };
}

export function serviceStarter(o: { uiDir: string | null; demo: boolean }): StartService {
  return async ({ dataDir, port, tokenVault, log }) => {
    const running = await serve({ dataDir, port, remoteTokenVault: tokenVault, host: '127.0.0.1', uiDir: o.uiDir, logLevel: 'warn',
      logStream: log ? serviceLog(log) : undefined, demo: o.demo, writeTokenFile: false });
    const owner = await ownerToken(running.store);
    const service: LocalService = {
      url: new URL(running.url).origin,
      token: owner?.token ?? '',
      async exportBackup(file) {
        const json = `${JSON.stringify(await exportAccount(running.store), null, 1)}\n`;
        const tmp = `${file}.partial`;
        await writeFile(tmp, json, { mode: 0o600 });
        await rename(tmp, file);
      },
      close: (c) => running.close(c),
    };
    return service;
  };
}
