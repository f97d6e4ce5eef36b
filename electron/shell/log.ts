// The desktop app's log: <logs>/bivouac.log, rotated by size (bivouac.log.1 … .N, the oldest
// dropped), reachable from Help → Open log folder. Nothing secret is written: known secret values
// (tokens) and anything shaped like a credential are replaced by [redacted] before a line is written.
// A line that repeats is written once a minute at most: a fault that recurs (a change stream failing its
// poll every 400 ms) would otherwise cycle the files within the hour and push out the start-up lines.

import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
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
  /** Writes what is still held back (the counts of repeated lines): on quit, on a failed start, before the log is shown. */
  flush?(): void;
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

/** A line written lately: how often it came again since, and when last. */
interface Recent { readonly first: Date; readonly until: number; readonly level: Level; repeats: number; last: Date; readonly head: string }

/**
 * A line's key for repeats: its level and its text, exactly (lines that differ in a number are all written); a
 * long text by its length and digest, so that the key holds little memory.
 */
const repeatKey = (level: Level, body: string) =>
  body.length > 1024 ? `${level} #${body.length} ${createHash('sha256').update(body).digest('base64')}` : `${level} ${body}`;

export class RotatingLog implements Log {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private readonly secrets: () => readonly string[];
  private size: number;
  private readonly now: () => Date;
  private readonly repeatMs: number;
  /** Lines written within the last `repeatMs`, by key, oldest first (at most MAX_RECENT). */
  private readonly recent = new Map<string, Recent>();
  /** The time of the last line, to see a clock set back. */
  private lastT = -Infinity;

  constructor(file: string, o: { maxBytes?: number; keep?: number; secrets?: () => readonly string[]; now?: () => Date; repeatMs?: number } = {}) {
    this.file = file;
    this.maxBytes = o.maxBytes ?? 1024 * 1024;
    this.keep = o.keep ?? 3;
    this.secrets = o.secrets ?? (() => []);
    this.now = o.now ?? (() => new Date());
    this.repeatMs = o.repeatMs ?? 60_000;
    mkdirSync(dirname(file), { recursive: true });
    this.size = existsSync(file) ? statSync(file).size : 0;
  }

  private rotate(): void {
    rmSync(`${this.file}.${this.keep}`, { force: true });
    for (let i = this.keep - 1; i >= 1; i--) if (existsSync(`${this.file}.${i}`)) renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
    if (existsSync(this.file)) renameSync(this.file, `${this.file}.1`);
    this.size = 0;
  }

  private append(at: Date, level: Level, body: string): void {
    const line = `${at.toISOString()} ${level.toUpperCase().padEnd(5)} ${body}\n`;
    const bytes = Buffer.byteLength(line);
    try {
      if (this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      appendFileSync(this.file, line, { mode: 0o600 });
      this.size += bytes;
    } catch {
      // A log that cannot be written (disk full, folder removed) must not stop the app.
    }
  }

  /** The count of a line's repeats, written (at `at`) once its minute is over or on flush; then forgotten. */
  private settle(key: string, r: Recent, at: Date): void {
    this.recent.delete(key);
    if (r.repeats === 0) return;
    this.append(at, r.level, `repeated ${r.repeats} more time${r.repeats === 1 ? '' : 's'} from ${r.first.toISOString()} to ${r.last.toISOString()}: ${r.head}`);
  }

  write(level: Level, msg: string, detail?: unknown): void {
    const at = this.now();
    const t = at.getTime();
    if (t < this.lastT - 1000) { // the clock was set back: the minutes of what is remembered mean nothing now
      this.flush(at);
      this.lastT = t;
    } else this.lastT = Math.max(this.lastT, t); // set-backs under a second are measured from the latest time seen

    for (const [k, r] of this.recent) {
      if (r.until > t) break; // in order of time: the rest are later
      this.settle(k, r, at);
    }
    const body = redact(`${msg}${describe(detail)}`, this.secrets());
    const key = repeatKey(level, body);
    const seen = this.recent.get(key);
    if (seen) {
      seen.repeats++;
      seen.last = at;
      return;
    }
    this.append(at, level, body);
    const line = body.split('\n', 1)[0];
    this.recent.set(key, { first: at, until: t + this.repeatMs, level, repeats: 0, last: at, head: line.length > 300 ? `${line.slice(0, 300)}…` : line });
    if (this.recent.size > MAX_RECENT) {
      const [k, r] = this.recent.entries().next().value!;
      this.settle(k, r, at);
    }
  }

  flush(at = this.now()): void {
    for (const [k, r] of this.recent) this.settle(k, r, at);
  }

  info(msg: string, detail?: unknown): void { this.write('info', msg, detail); }
  warn(msg: string, detail?: unknown): void { this.write('warn', msg, detail); }
  error(msg: string, detail?: unknown): void { this.write('error', msg, detail); }
}

/** Distinct lines remembered for their repeats: past it, the oldest is settled early. */
const MAX_RECENT = 256;
