// The local service's log lines (pino's JSON) into the shell's log: used where the service runs in the main
// process (service.ts) and where it runs in a process of its own (service-process.ts). No node:sqlite here.

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
