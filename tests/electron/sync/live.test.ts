// The live follower against a hostile change stream (issue #26, D305): endless lines, endless events,
// silence, a stream that closes at once in a loop, 429, a remote without the stream, a storm of
// events. A real node:http server on 127.0.0.1; the follower's clock is virtual (its reconnects and
// its silence timeout run when the test fires them), so nothing asserts on timing.

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveFollower } from '../../../electron/sync/live.ts';
import { Remote } from '../../../electron/sync/remote.ts';
import { VirtualClock } from '../../support/virtual-clock.ts';

type Mode = 'hugeLine' | 'endlessEvent' | 'silent' | 'closeAtOnce' | 'busy' | 'none' | 'storm' | 'html' | 'good' | 'deaf';

interface Hostile { url: string; mode: Mode; connections: number; closed: number; written: number[]; server: Server; open: Set<ServerResponse> }

async function hostile(mode: Mode): Promise<Hostile> {
  const h: Hostile = { url: '', mode, connections: 0, closed: 0, written: [], server: null as unknown as Server, open: new Set() };
  h.server = createServer((req, res) => {
    if (req.url !== '/changes/stream') { res.writeHead(404).end(); return; }
    const k = h.connections++;
    h.written[k] = 0;
    res.on('close', () => { h.closed++; h.open.delete(res); });
    h.open.add(res);
    const sse = () => res.writeHead(200, { 'content-type': 'text/event-stream' });
    switch (h.mode) {
      case 'none': res.writeHead(404).end('no such route'); return;
      case 'busy': res.writeHead(429, { 'retry-after': '7' }).end(); return;
      case 'html': res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'); return;
      case 'closeAtOnce': sse(); res.end('event: ready\ndata: {"seq":1}\n\n'); return;
      case 'silent': sse(); res.flushHeaders(); return;
      case 'deaf': return; // accepts, never answers
      case 'storm': {
        sse();
        let s = 'event: ready\ndata: {"seq":1}\n\n';
        for (let i = 2; i < 2000; i++) s += `event: change\nid: ${i}\ndata: {"seq":${i}}\n\n`;
        res.write(s);
        return;
      }
      case 'good': sse(); res.write('event: ready\ndata: {"seq":1}\n\n'); return;
      default: {
        // Endless: one line that never ends, or data lines of one event that never ends; written while
        // the client reads (backpressure), until it closes.
        sse();
        const chunk = h.mode === 'hugeLine' ? 'x'.repeat(16 * 1024) : 'data: ' + 'y'.repeat(1000) + '\n';
        const pump = () => {
          while (!res.destroyed && h.written[k] < 64 * 1024 * 1024) {
            h.written[k] += chunk.length;
            if (!res.write(chunk)) { res.once('drain', pump); return; }
          }
        };
        pump();
      }
    }
  });
  await new Promise<void>((r) => h.server.listen(0, '127.0.0.1', r));
  h.url = `http://127.0.0.1:${(h.server.address() as AddressInfo).port}`;
  return h;
}

async function until(what: string, probe: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the live follower against a hostile change stream', () => {
  const servers: Hostile[] = [];
  const followers: LiveFollower[] = [];
  afterEach(async () => {
    for (const f of followers.splice(0)) f.stop();
    for (const h of servers.splice(0)) { for (const r of h.open) r.destroy(); await new Promise((r) => h.server.close(r)); }
  });

  const follow = async (mode: Mode, o: { maxChars?: number } = {}) => {
    const h = await hostile(mode);
    servers.push(h);
    const clock = new VirtualClock();
    const remote = new Remote({ url: h.url, auth: { token: 't' } });
    const events = { changes: 0, gone: false, states: [] as boolean[] };
    const f = new LiveFollower({
      open: (path, signal) => remote.openStream(path, signal), timers: clock, random: () => 1,
      backoff: { baseMs: 1000, capMs: 60_000, maxRetryAfterMs: 600_000 },
      onChange: () => { events.changes++; }, onState: (open, _why, gone) => { events.states.push(open); if (gone) events.gone = true; },
      silenceMs: 45_000, minGapMs: 100, ...o,
    });
    followers.push(f);
    f.start();
    return { h, clock, f, events, remote };
  };

  it('an endless line ends the stream after a bounded read, and it reconnects with a growing backoff', async () => {
    const { h, clock, f, events } = await follow('hugeLine', { maxChars: 64 * 1024 });
    const waits: number[] = [];
    for (let k = 1; k <= 4; k++) {
      await until(`connection ${k} closed and a retry armed`, () => h.closed >= k && f.nextRetryMs !== null);
      waits.push(f.nextRetryMs!);
      clock.fire();
    }
    expect(waits).toEqual([2000, 4000, 8000, 16000]); // full jitter at random = 1: base·2^n
    // Each connection was given up long before the server's 64 MiB: the buffer stayed bounded.
    for (const w of h.written.slice(0, 4)) expect(w).toBeLessThan(8 * 1024 * 1024);
    expect(events.changes).toBe(0);
    expect(f.lastError).toMatch(/longer than 65536 characters/);
  });

  it('an event whose data lines never end is not held either', async () => {
    const { h, f } = await follow('endlessEvent', { maxChars: 64 * 1024 });
    await until('the stream given up', () => h.closed >= 1 && f.nextRetryMs !== null);
    expect(h.written[0]).toBeLessThan(8 * 1024 * 1024);
    expect(f.lastError).toMatch(/event of the stream is longer/);
  });

  it('a stream that closes at once, in a loop, is reopened with the backoff (never at once)', async () => {
    const { h, clock, f, events } = await follow('closeAtOnce');
    const waits: number[] = [];
    for (let k = 1; k <= 3; k++) {
      await until(`connection ${k} over`, () => h.closed >= k && f.nextRetryMs !== null);
      waits.push(f.nextRetryMs!);
      clock.fire();
    }
    expect(waits).toEqual([2000, 4000, 8000]);
    // Its `ready` events asked for syncs, throttled: never more than one per connection.
    expect(events.changes).toBeLessThanOrEqual(3);
  });

  it('a stream that says nothing is closed after the silence timeout and reopened', async () => {
    const { h, clock, f } = await follow('silent');
    // Its headers read (`opened`), so the 45 s armed is the silence's, not the headers' (the two raced under load).
    await until('the stream open', () => h.connections === 1 && f.opened === 1 && clock.pending().includes(45_000));
    expect(clock.fire()).toBe(45_000); // the silence timeout: nothing came, not even a keep-alive
    await until('closed, a retry armed', () => h.closed >= 1 && f.nextRetryMs !== null);
    expect(f.lastError).toBe('the change stream said nothing for too long');
    clock.fire();
    await until('reopened', () => h.connections === 2);
  });

  it('a remote that never answers the headers is given up after the silence timeout, and asked again later', async () => {
    const { h, clock, f } = await follow('deaf');
    await until('the request arrived', () => h.connections === 1 && clock.pending().includes(45_000));
    clock.fire();
    await until('given up, a retry armed', () => f.nextRetryMs !== null);
    expect(f.lastError).toBe('the change stream did not answer');
    clock.fire();
    await until('asked again', () => h.connections === 2);
  });

  it('429 waits for its Retry-After; an answer that is not an event stream is retried with the backoff', async () => {
    const busy = await follow('busy');
    await until('a retry armed', () => busy.f.nextRetryMs !== null);
    expect(busy.f.nextRetryMs).toBe(7000);
    const html = await follow('html');
    await until('a retry armed', () => html.f.nextRetryMs !== null);
    expect(html.f.nextRetryMs).toBe(2000);
    expect(html.f.lastError).toMatch(/200 text\/html/);
  });

  it('a remote without the stream (404) is not asked again: the interval stays', async () => {
    const { h, f, events } = await follow('none');
    await until('given up', () => events.gone);
    expect(f.gone).toBe(true);
    expect(f.nextRetryMs).toBeNull();
    f.start();
    expect(h.connections).toBe(1);
  });

  it('a storm of change events asks for a sync at most once per gap', async () => {
    const { clock, events, f } = await follow('storm');
    await until('the stream read', () => events.changes >= 1 && clock.pending().includes(100));
    expect(events.changes).toBe(1); // 2,000 events in one go: one now…
    expect(clock.pending()).toContain(100);
    // …and one when the gap ends (the timer of the gap is the one armed 100 ms ahead).
    while (clock.pending()[0] !== 100) await new Promise((r) => setTimeout(r, 5));
    clock.fire();
    expect(events.changes).toBe(2);
    expect(f.open).toBe(true);
  });

  it('stop() closes the stream at once, and a start after it is one stream again', async () => {
    const { h, f } = await follow('good');
    await until('open', () => f.open);
    f.stop();
    await until('the server saw it close', () => h.closed === 1);
    f.start();
    f.start();
    await until('open again', () => f.open);
    expect(h.connections).toBe(2);
    expect(h.open.size).toBe(1);
  });
});
