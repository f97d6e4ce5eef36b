// The desktop app's log: <logs>/bivouac.log, rotated by size (bivouac.log.1 … .N, the oldest
// dropped), reachable from Help → Open log folder. Nothing secret is written: known secret values
// (tokens) and anything shaped like a credential are replaced by [redacted] before a line is written.

import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const REDACTED = '[redacted]';

/** Patterns of credentials that may appear in messages (headers, URLs, JSON, query strings). */
const PATTERNS: [RegExp, string][] = [
  [/(authorization\s*[:=]\s*)(?:basic|bearer)?\s*[^\s,;"'}]+/gi, ''],
  [/(["']?(?:token|password|passwd|secret|api[-_]?key|remoteToken|localToken)["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi, ''],
  [/([?&](?:token|password|key)=)[^&#\s]+/gi, ''],
  [/(\/\/)[^/@\s:]+:[^/@\s]+@/g, '@'], // user:password@ in URLs
];
/** A Basecamp-style token (40 hex digits) anywhere. */
const TOKEN_LIKE = /\b[0-9a-f]{40}\b/gi;

export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 6) out = out.split(s).join(REDACTED);
  for (const [p, tail] of PATTERNS) out = out.replace(p, (_m, keep: string) => `${keep}${REDACTED}${tail}`);
  return out.replace(TOKEN_LIKE, REDACTED);
}

export type Level = 'info' | 'warn' | 'error';

export interface Log {
  info(msg: string, detail?: unknown): void;
  warn(msg: string, detail?: unknown): void;
  error(msg: string, detail?: unknown): void;
}

function describe(detail: unknown): string {
  if (detail === undefined) return '';
  if (detail instanceof Error) return ` ${detail.name}: ${detail.message}${detail.stack ? `\n${detail.stack.split('\n').slice(1, 6).join('\n')}` : ''}`;
  try {
    return ` ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
  } catch {
    return ` ${String(detail)}`;
  }
}

export class RotatingLog implements Log {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly secrets: () => readonly string[];
  private size: number;
  private readonly now: () => Date;

  constructor(file: string, o: { maxBytes?: number; keep?: number; secrets?: () => readonly string[]; now?: () => Date } = {}) {
    this.file = file;
    this.maxBytes = o.maxBytes ?? 1024 * 1024;
    this.keep = o.keep ?? 3;
    this.secrets = o.secrets ?? (() => []);
    this.now = o.now ?? (() => new Date());
    mkdirSync(dirname(file), { recursive: true });
    this.size = existsSync(file) ? statSync(file).size : 0;
  }

  private rotate(): void {
    rmSync(`${this.file}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) if (existsSync(`${this.file}.${i}`)) renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    if (existsSync(this.file)) renameSync(this.file, `${this.file}.1`);
    this.size = 0;
  }

  write(level: Level, msg: string, detail?: unknown): void {
    const line = `${this.now().toISOString()} ${level.toUpperCase().padEnd(5)} ${redact(`${msg}${describe(detail)}`, this.secrets())}\n`;
    const bytes = Buffer.byteLength(line);
    try {
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      appendFileSync(this.file, line, { mode: 0o600 });
      this.size += bytes;
    } catch {
      // A log that cannot be written (disk full, folder removed) must not stop the app.
    }
  }

  info(msg: string, detail?: unknown): void { this.write('info', msg, detail); }
  warn(msg: string, detail?: unknown): void { this.write('warn', msg, detail); }
  error(msg: string, detail?: unknown): void { this.write('error', msg, detail); }
}
