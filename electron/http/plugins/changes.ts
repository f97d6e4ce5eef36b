// The live change stream (docs/changes-stream.md, D94): `GET /changes/stream` answers Server-Sent
// Events, authenticated like every API request. Each connection polls the store's change token (cheap,
// and it sees commits of other processes on the same database) and, when it moved, sends what changed.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as svc from '../../service/changes.ts';
import { ApiError, type Ctx } from '../../service/context.ts';
import { sendError } from '../api.ts';

/** How often an open stream looks at the change token, and sends a keep-alive comment. */
export const POLL_MS = 400;
const KEEPALIVE_MS = 15_000;
/** Streams one person may hold open at once in one process (each polls the store). */
export const MAX_STREAMS = 16;

/**
 * Set by the plugin: look at the change token of every open stream now. The app calls it after a write of
 * this process answered (a teammate's replica learns of it at once instead of at the next poll; D305);
 * commits of other processes are still seen by the poll.
 */
export interface StreamWaker { wake: () => void }

export default async function changes(app: FastifyInstance, opts: { waker?: StreamWaker } = {}): Promise<void> {
  // Open streams of this app instance: closed when the server closes (no module-level state).
  const open = new Set<() => void>();
  const ticks = new Set<() => Promise<void>>();
  if (opts.waker) opts.waker.wake = () => { for (const t of ticks) void t(); };
  // preClose: before the server waits for its connections to end (an open stream never ends by itself).
  app.addHook('preClose', async () => { for (const end of [...open]) end(); });
  // Open streams per person: a signed-in person cannot make the service poll the store without bound.
  const held = new Map<number, number>();

  app.get('/changes/stream', async (req: FastifyRequest, reply) => {
    const ctx: Ctx = { store: app.store, caller: req.caller! };
    const who = ctx.caller.id;
    if ((held.get(who) ?? 0) >= MAX_STREAMS) {
      return sendError(reply, new ApiError(429, [`Too many open change streams for this person (at most ${MAX_STREAMS}): close one first`], { 'Retry-After': '5' }), req.wantsJson === true);
    }
    held.set(who, (held.get(who) ?? 0) + 1);
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      const n = (held.get(who) ?? 1) - 1;
      if (n > 0) held.set(who, n); else held.delete(who);
    };
    // A stream that fails before it is open gives its place back too.
    req.raw.on('close', release);
    const q = req.query as Record<string, string | undefined>;
    const last = Number(req.headers['last-event-id'] ?? q.since ?? NaN);
    let seq = Number.isInteger(last) && last >= 0 ? last : await svc.head(ctx);
    let token = await app.store.changeToken();
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive',
      'X-Accel-Buffering': 'no', Status: '200',
    });
    res.write(`retry: 2000\nevent: ready\nid: ${seq}\ndata: ${JSON.stringify({ seq })}\n\n`);
    let busy = false;
    let again = false;
    const tick = async (): Promise<void> => {
      // A wake during a look: one more look after it (the commit may have come after its token read).
      if (busy) { again = true; return; }
      busy = true;
      again = false;
      try {
        const now = await app.store.changeToken();
        if (now === token) return;
        token = now;
        for (let batch = await svc.since(ctx, seq); batch; batch = await svc.since(ctx, seq)) {
          seq = batch.seq;
          if (batch.resources.length) res.write(`event: change\nid: ${seq}\ndata: ${JSON.stringify(batch)}\n\n`);
        }
      } catch (e) {
        req.log.error(e);
      } finally {
        busy = false;
        if (again && !res.writableEnded) void tick();
      }
    };
    const poll = setInterval(() => void tick(), POLL_MS);
    ticks.add(tick);
    const alive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const end = () => {
      clearInterval(poll); clearInterval(alive);
      ticks.delete(tick);
      open.delete(end);
      release();
      if (!res.writableEnded) res.end();
    };
    open.add(end);
    req.raw.on('close', end);
  });
}
