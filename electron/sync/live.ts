// The live follower (issue #26, D305–D307): a replica connected to a team server keeps its change
// stream (`GET /changes/stream`, docs/changes-stream.md) open and asks the engine for a sync whenever
// the stream says something changed. Explicit inputs: how to open the stream (the remote), what to call
// on a change, the clock; nothing of the engine's state. One stream per replica (the team server allows
// 16 per person): `start` twice is one stream.
//
// The remote is not trusted: a line or an event longer than `maxChars` ends the stream; a stream that
// says nothing (not even its keep-alive comment) for `silenceMs` is closed; a stream that closes early
// (before `stableMs`), errors, 429/5xx, an answer that is not an event stream, all reconnect with the
// backoff (full jitter, Retry-After honoured, D255); change events are passed on at most once per
// `minGapMs`. A remote without the stream (404, 405, 501) is not followed again on this connection:
// the engine keeps its interval.

import { sseParser } from '../../shared/sse.ts';
import { BACKOFF, nextDelay, REAL_TIMERS, retryAfterMs, type BackoffPolicy, type Timers } from './backoff.ts';
import { remoteNow } from './remote.ts';

export const STREAM_PATH = '/changes/stream';

export interface LiveOptions {
  /** Open the stream (Remote.openStream): an answer with its body unread; throws when the remote does not answer. */
  readonly open: (path: string, signal: AbortSignal) => Promise<Response>;
  /** Something changed on the remote (or may have: the stream was (re)opened): sync soon. */
  readonly onChange: () => void;
  /** The stream opened (true) or was lost (false); `gone`: the remote has no stream (not tried again). */
  readonly onState?: (open: boolean, why: string | null, gone?: boolean) => void;
  readonly timers?: Timers;
  readonly random?: () => number;
  readonly backoff?: BackoffPolicy;
  /** A line or one event's data longer than this (characters) ends the stream (default 64 Ki). */
  readonly maxChars?: number;
  /** Nothing received for this long (ms): the stream is taken as dead and reopened (default 45 s; keep-alives come every 15 s). */
  readonly silenceMs?: number;
  /** A stream that stayed open this long (ms) resets the backoff when it ends (default 30 s). */
  readonly stableMs?: number;
  /** Change events passed on at most once per this many ms (default 100). */
  readonly minGapMs?: number;
}

export class LiveFollower {
  private readonly o: LiveOptions;
  private running = false;
  /** Each start begins a generation: a loop of an earlier one (still unwinding after a stop) ends quietly. */
  private gen = 0;
  private abort: AbortController | null = null;
  private failures = 0;
  private retry: { handle: unknown; wake: () => void } | null = null;
  private gap: unknown = null;
  private lastChange = -Infinity;
  private owed = false;
  /** The stream is open now. */
  open = false;
  /** The remote has no change stream (404/405/501): not followed on this connection. */
  gone = false;
  /** The wait before the next reconnect while one is armed (ms), else null (tests). */
  nextRetryMs: number | null = null;
  /** Streams opened (tests, bench). */
  opened = 0;
  /** Why the current stream is being closed by us (silence), if it is. */
  private why: string | null = null;
  /** Why the last stream ended or could not open. */
  lastError: string | null = null;

  constructor(o: LiveOptions) { this.o = o; }

  private get timers(): Timers { return this.o.timers ?? REAL_TIMERS; }
  /** Following (or trying to): started, not stopped, the remote has a stream. */
  get active(): boolean { return this.running; }

  start(): void {
    if (this.running || this.gone) return;
    this.running = true;
    this.failures = 0;
    void this.loop(++this.gen);
  }

  stop(): void {
    this.running = false;
    this.gen++;
    this.abort?.abort();
    this.abort = null;
    if (this.retry !== null) { this.timers.clear(this.retry.handle); this.retry.wake(); this.retry = null; }
    if (this.gap !== null) { this.timers.clear(this.gap); this.gap = null; }
    this.owed = false;
    this.setOpen(false, null);
  }

  private setOpen(v: boolean, why: string | null, gone = false): void {
    if (this.open === v && !gone) return;
    this.open = v;
    this.o.onState?.(v, why, gone);
  }

  /** A change: passed on now, or at the end of the gap (one call for any number of events meanwhile). */
  private changed(): void {
    if (!this.running) return;
    const now = this.timers.now();
    const wait = this.lastChange + (this.o.minGapMs ?? 100) - now;
    if (wait <= 0 && this.gap === null) {
      this.lastChange = now;
      this.o.onChange();
      return;
    }
    this.owed = true;
    if (this.gap !== null) return;
    this.gap = this.timers.set(() => {
      this.gap = null;
      if (!this.owed || !this.running) return;
      this.owed = false;
      this.lastChange = this.timers.now();
      this.o.onChange();
    }, Math.max(0, wait));
  }

  private async loop(gen: number): Promise<void> {
    const mine = () => this.running && this.gen === gen;
    while (mine()) {
      const began = this.timers.now();
      let retryAfter: number | null = null;
      try {
        retryAfter = await this.once();
      } catch (e) {
        if (!mine()) return;
        this.lastError = this.why ?? (e as Error).message;
      }
      if (!mine()) return;
      this.setOpen(false, this.lastError);
      if (this.gone) break;
      // A stream that lasted is a success that ended (a proxy's timeout, a server restart): reopened soon.
      if (this.timers.now() - began >= (this.o.stableMs ?? 30_000)) this.failures = 0;
      this.failures++;
      const delay = nextDelay(this.failures, retryAfter, this.o.random ?? Math.random, this.o.backoff ?? BACKOFF);
      this.nextRetryMs = delay;
      await new Promise<void>((resolve) => { this.retry = { handle: this.timers.set(() => { this.retry = null; resolve(); }, delay), wake: resolve }; });
      this.nextRetryMs = null;
    }
    if (this.gone) { this.running = false; this.setOpen(false, this.lastError, true); }
  }

  /** One stream, until it ends: throws why; returns the remote's Retry-After (ms) when it asked for one. */
  private async once(): Promise<number | null> {
    const abort = new AbortController();
    this.abort = abort;
    this.why = null;
    // A remote that accepts and never answers the headers is given up after the same silence.
    const deaf = this.timers.set(() => { this.why = 'the change stream did not answer'; abort.abort(); }, this.o.silenceMs ?? 45_000);
    let res: Response;
    try {
      res = await this.o.open(STREAM_PATH, abort.signal);
    } finally {
      this.timers.clear(deaf);
    }
    if (res.status === 404 || res.status === 405 || res.status === 501) {
      await res.body?.cancel().catch(() => undefined);
      this.gone = true;
      throw new Error(`the remote has no change stream (${res.status}): syncs on the interval`);
    }
    if (res.status !== 200 || !/^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '') || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      this.lastError = `the change stream answered ${res.status} ${res.headers.get('content-type') ?? ''}`.trim();
      return res.status === 429 || res.status === 503 ? retryAfterMs(res.headers.get('retry-after'), remoteNow(res.headers), Date.now(), this.o.backoff ?? BACKOFF) : null;
    }
    this.opened++;
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let silence: unknown = null;
    const quiet = () => {
      if (silence !== null) this.timers.clear(silence);
      silence = this.timers.set(() => { this.why = 'the change stream said nothing for too long'; abort.abort(); void reader.cancel().catch(() => undefined); }, this.o.silenceMs ?? 45_000);
    };
    const parser = sseParser((e) => {
      // `ready` after an open: what changed while no stream was open is read by a sync.
      if (e.event === 'ready') { this.setOpen(true, null); this.changed(); } else if (e.event === 'change') this.changed();
    }, { maxChars: this.o.maxChars ?? 64 * 1024 });
    quiet();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || !this.running) break;
        quiet();
        parser.push(decoder.decode(value, { stream: true }));
      }
      this.lastError = this.why ?? 'the change stream ended';
    } finally {
      if (silence !== null) this.timers.clear(silence);
      abort.abort();
      void reader.cancel().catch(() => undefined);
      if (this.abort === abort) this.abort = null;
    }
    return null;
  }
}
