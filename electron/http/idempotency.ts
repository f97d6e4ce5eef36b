// The Idempotency-Key hook shared by every write route (docs/sync-protocol.md). Write routes are
// POST/PUT/DELETE on resource routes and every method of an action route (action routes change
// data on GET too, as the interface requires); HEAD never, resource GETs never. A key is kept only
// when its request committed a write (D244): a read of an action route, a refusal or a validation
// error releases it.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hash } from 'node:crypto';
import { ApiError } from '../service/context.ts';
import { check, claimIn, DEFAULT_CAP, finish, validKey, type KeyCap, type UsageEstimates } from '../service/idempotency.ts';
import type { Store } from '../store/types.ts';
import { BODY_LIMIT, routeConfig, sendError, type KeyClaim, type RouteConfig } from './api.ts';

declare module 'fastify' {
  /**
   * `idemKey`: the key this request runs under; `idemChanged`: the request committed a write (http/api.ts
   * sets it); `idemClaimed`: the key's row is this request's claim (committed); `idemClaim`: how it claims.
   */
  interface FastifyRequest { idemKey?: string; idemChanged?: boolean; idemClaimed?: boolean; idemClaim?: KeyClaim; idemFingerprint?: string }
}

const STILL_RUNNING = (): ApiError => new ApiError(409, ['A request with this Idempotency-Key is still being processed'], { 'Retry-After': '1' });

/** The claim of a key checked `new`: made by the request's first write that commits (D340). */
function keyClaim(store: Store, req: FastifyRequest, key: string, fingerprint: string): KeyClaim {
  let pending = false;
  return {
    async before(w) {
      pending = false;
      if (req.idemClaimed) return;
      // Another request with this key claimed it since the check: this one answers 409, its write rolls back.
      if (!await claimIn(w, req.caller!.id, key, fingerprint)) throw STILL_RUNNING();
      pending = true;
    },
    after() {
      if (pending) req.idemClaimed = true;
      pending = false;
    },
  };
}

function isWrite(req: FastifyRequest, cfg: Partial<RouteConfig>): boolean {
  if (!cfg.allow || !cfg.spec || req.method === 'HEAD') return false;
  return req.method !== 'GET' || cfg.spec.style === 'action';
}

/** A GET with a body on an action route: read it here (the fingerprint needs it) and hand it on. */
async function bodyOf(req: FastifyRequest): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return req.body;
  const raw = req.raw;
  if (req.method !== 'GET' || (!raw.headers['content-length'] && !raw.headers['transfer-encoding'])) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of raw) {
    size += (c as Buffer).length;
    if (size > BODY_LIMIT) throw new ApiError(413, ['Request body is too large (maximum is 1 MiB)']);
    chunks.push(c as Buffer);
  }
  const buf = Buffer.concat(chunks);
  req.body = buf;
  return buf;
}

/**
 * A route that changed data without writing through its request's store (the batch: its mutations wrote,
 * each under its own key) keeps its key's answer: the key, not claimed by a write, is claimed here in a
 * statement of its own. Taken meanwhile by another request with the same key: that one keeps its answer.
 */
export async function keepKey(store: Store, req: FastifyRequest): Promise<void> {
  req.idemChanged = true;
  if (req.idemKey === undefined || req.idemClaimed || req.idemFingerprint === undefined || !req.caller) return;
  if (await claimIn(store, req.caller.id, req.idemKey, req.idemFingerprint)) req.idemClaimed = true;
}

/**
 * The body a key's fingerprint is taken of: every password value blanked (an administrator's person create or
 * password reset, a person changing their own). The fingerprint is stored with the key for a day; an unsalted
 * SHA-256 of a body that held a password would be a fast hash of it, open to a guessing attack by whoever reads
 * the table. The cost: the same key sent again with only another password is taken for the same request (its
 * stored answer is replayed), which a client retrying one write never does.
 */
export function withoutSecrets(body: Buffer): Buffer {
  const text = body.toString('utf8');
  return /password/i.test(text) ? Buffer.from(blankSecrets(text), 'utf8') : body;
}

const SECRET = /password/i;
function blankSecrets(text: string): string {
  if (!SECRET.test(text)) return text;
  let json: unknown;
  try { json = JSON.parse(text); } catch { json = undefined; }
  if (json !== undefined && typeof json === 'object' && json !== null) return JSON.stringify(blankIn(json));
  // XML: <password>…</password>, <password type="string">…</password>, <new-password>…</new-password>
  return text.replace(/<([\w-]*password[\w-]*)(\s[^>]*)?>[\s\S]*?<\/\1\s*>/gi, '<$1/>');
}
/** JSON: a value under a password key blanked; a string holding a body of its own (a batch's mutation) cleaned too. */
function blankIn(v: unknown): unknown {
  if (typeof v === 'string') return blankSecrets(v);
  if (Array.isArray(v)) return v.map(blankIn);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET.test(k) ? '' : blankIn(x)]));
  return v;
}

export function idempotency(app: FastifyInstance, store: Store, cap: KeyCap = DEFAULT_CAP): void {
  /** This server's count of each person's key usage between reads (D340). */
  const usage: UsageEstimates = new Map();
  /** Claims the key; true when it answered the request itself (a replay or a refusal). */
  const claimed = async (req: FastifyRequest, reply: FastifyReply, key: string | string[]): Promise<boolean> => {
    const json = req.wantsJson === true;
    if (typeof key !== 'string' || !validKey(key)) {
      sendError(reply, new ApiError(400, ['Idempotency-Key must be 1 to 255 visible ASCII characters']), json);
      return true;
    }
    const body = await bodyOf(req);
    const fingerprint = hash('sha256', Buffer.concat([Buffer.from(`${req.method} ${req.url}\n`), withoutSecrets(body)]), 'base64');
    // A read (D340): the key is claimed in the transaction of the request's write, not in one of its own.
    const c = await check(store, req.caller!.id, key, fingerprint);
    if (c.kind === 'mismatch') {
      sendError(reply, new ApiError(422, ['Idempotency-Key was already used for a different request']), json);
      return true;
    }
    if (c.kind === 'running') {
      sendError(reply, STILL_RUNNING(), json);
      return true;
    }
    if (c.kind === 'replay') {
      const s = c.stored;
      reply.code(Number(s.status)).header('Idempotent-Replayed', 'true');
      if (s.location) reply.header('Location', s.location);
      if (s.content_type) reply.type(s.content_type);
      reply.send(s.body ?? '');
      return true;
    }
    req.idemKey = key;
    if (c.kind === 'run') req.idemClaimed = true; // an abandoned claim, taken over
    else {
      req.idemClaim = keyClaim(store, req, key, fingerprint);
      req.idemFingerprint = fingerprint;
    }
    return false;
  };

  // Callback-style hooks: a request without the header (nearly all) passes without a promise (D122).
  app.addHook('preHandler', (req, reply, done) => {
    const key = req.headers['idempotency-key'];
    if (key === undefined || !req.caller || !isWrite(req, routeConfig(req))) { done(); return; }
    claimed(req, reply, key).then((answered) => { if (!answered) done(); }, done);
  });

  app.addHook('onSend', (req, reply, payload, done) => {
    if (req.idemKey === undefined || !req.caller) { done(null, payload); return; }
    const key = req.idemKey;
    req.idemKey = undefined;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
    const loc = reply.getHeader('location');
    const type = reply.getHeader('content-type');
    finish(store, req.caller.id, key, reply.statusCode, loc === undefined ? null : String(loc),
      type === undefined ? null : String(type), body, req.idemChanged === true, cap, req.idemClaimed === true, usage).then(() => done(null, payload), (e: Error) => done(e));
  });
}
