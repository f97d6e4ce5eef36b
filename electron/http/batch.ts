// One request for many writes (issue #26, docs/sync-protocol.md §5, D284): `POST /sync/batch.json`
// carries an ordered list of mutations, each re-dispatched through the app itself (Fastify's inject),
// so that every check of a single request applies to it unchanged: authentication, the rate limiter
// (a batch of N counts N + 1 requests), Host/Origin, 405/404 preflight, validation, visibility and
// the mutation's own Idempotency-Key (D244). Mutations run in order and the batch stops at the first
// one that does not succeed; the batch itself is a write route, so its own Idempotency-Key replays
// the whole answer.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../service/context.ts';
import { BODY_LIMIT, routeConfig, sendError, type RouteConfig } from './api.ts';
import { keepKey } from './idempotency.ts';

/** At most this many mutations in one batch (advertised in the capabilities). */
export const BATCH_MAX = 100;
/** The batch's body, bytes (the app's body limit: a larger one is refused before it is read). */
export const BATCH_BYTES = BODY_LIMIT;

/**
 * The header that marks a request dispatched by a batch: a secret of this process, so that no request
 * from outside can pretend to be one (and none inside one can skip the write-route check).
 */
const INNER = 'x-bivouac-batch-inner';
const SECRET = randomBytes(24).toString('base64url');

const KEY = /^[\x21-\x7e]{1,255}$/;
const METHOD = new Set(['GET', 'POST', 'PUT', 'DELETE']);

export interface Mutation { readonly method: string; readonly path: string; readonly body: string | null; readonly key: string | null }

export interface MutationResult {
  readonly status: number;
  readonly location?: string;
  readonly replayed?: boolean;
  readonly retryAfter?: string;
  /** The answer's body: for an error (its error document) and for a create without a Location. */
  readonly body?: string;
}

/** Decode a batch body; an ApiError 400/413 says what is wrong (nothing executes then). */
export function parseBatch(buf: Buffer | undefined): Mutation[] {
  let j: unknown;
  try {
    j = JSON.parse(buf ? buf.toString('utf8') : '');
  } catch {
    throw new ApiError(400, ['A batch is a JSON object: {"mutations":[{"method","path","body","key"}, …]}']);
  }
  const list = (j as { mutations?: unknown } | null)?.mutations;
  if (!Array.isArray(list) || list.length === 0) throw new ApiError(400, ['A batch needs a non-empty "mutations" array']);
  if (list.length > BATCH_MAX) throw new ApiError(413, [`A batch holds at most ${BATCH_MAX} mutations (this one has ${list.length}): split it`]);
  return list.map((m: unknown, i) => {
    const o = (m ?? {}) as Record<string, unknown>;
    const where = `Mutation ${i + 1}`;
    if (typeof o.method !== 'string' || !METHOD.has(o.method)) throw new ApiError(400, [`${where}: "method" must be GET, POST, PUT or DELETE`]);
    if (typeof o.path !== 'string' || !o.path.startsWith('/') || o.path.startsWith('//') || o.path.length > 2048 || /[\s#]/.test(o.path)) {
      throw new ApiError(400, [`${where}: "path" must be a route of this server, starting with one /`]);
    }
    const path = o.path.split('?')[0];
    if (/^\/(sync|changes)\b/.test(path) || path === '/health') throw new ApiError(400, [`${where}: ${path} cannot be in a batch (only the interface's write routes can)`]);
    if (o.body !== undefined && o.body !== null && typeof o.body !== 'string') throw new ApiError(400, [`${where}: "body" must be a string (the XML or JSON text) or null`]);
    if (o.key !== undefined && o.key !== null && (typeof o.key !== 'string' || !KEY.test(o.key))) {
      throw new ApiError(400, [`${where}: "key" (its Idempotency-Key) must be 1 to 255 visible ASCII characters`]);
    }
    return { method: o.method, path: o.path, body: (o.body as string | null | undefined) ?? null, key: (o.key as string | null | undefined) ?? null };
  });
}

/** A request dispatched by a batch must land on a write route (GET only on action routes). */
function innerRefusal(req: FastifyRequest): ApiError | null {
  const cfg: Partial<RouteConfig> = routeConfig(req);
  const url = req.routeOptions.url ?? '';
  if (!cfg.allow || !cfg.spec || /^\/(sync|changes)\b/.test(url)) return new ApiError(400, [`${req.method} ${req.url.split('?')[0]} cannot be in a batch (only the interface's write routes can)`]);
  if (req.method === 'GET' && cfg.spec.style !== 'action') return new ApiError(400, [`GET ${req.url.split('?')[0]} is a read: only writes can be in a batch`]);
  return null;
}

/**
 * The check of every request a batch dispatches: registered before the Idempotency-Key hook, so that a
 * refused mutation claims no key. A request that names the header without the secret is refused.
 */
export function batchGuard(app: FastifyInstance): void {
  app.addHook('preHandler', (req, reply, done) => {
    const mark = req.headers[INNER];
    if (mark === undefined) { done(); return; }
    const refusal = mark !== SECRET ? new ApiError(400, ['Not a batch']) : innerRefusal(req);
    if (refusal) { sendError(reply, refusal, req.wantsJson === true); return; }
    done();
  });
}

const header = (v: string | string[] | number | undefined): string | undefined => (v === undefined ? undefined : Array.isArray(v) ? v[0] : String(v));

/** Run the mutations in order, stopping after the first that does not answer 2xx. */
export async function runBatch(app: FastifyInstance, req: FastifyRequest, mutations: readonly Mutation[]): Promise<{ results: MutationResult[]; changed: boolean }> {
  const results: MutationResult[] = [];
  let changed = false;
  // The batch reads nothing itself: its pin of the change token (D145) would only make the mutations' reads stale.
  req.unpin?.();
  req.unpin = undefined;
  const pass: Record<string, string> = { [INNER]: SECRET };
  for (const h of ['authorization', 'host', 'origin', 'sec-fetch-site', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']) {
    const v = header(req.headers[h]);
    if (v !== undefined) pass[h] = v;
  }
  for (const m of mutations) {
    const json = m.path.split('?')[0].endsWith('.json');
    const r = await app.inject({
      method: m.method as 'POST', url: m.path, remoteAddress: req.ip,
      headers: { ...pass, ...(m.key !== null ? { 'idempotency-key': m.key } : {}), ...(m.body !== null ? { 'content-type': json ? 'application/json' : 'application/xml' } : {}) },
      ...(m.body !== null ? { payload: m.body } : {}),
    });
    const status = r.statusCode;
    const location = header(r.headers.location);
    const replayed = r.headers['idempotent-replayed'] === 'true';
    const ok = status >= 200 && status < 300;
    if (ok && !replayed) changed = true;
    const retryAfter = header(r.headers['retry-after']);
    results.push({
      status, ...(location ? { location } : {}), ...(replayed ? { replayed } : {}), ...(retryAfter ? { retryAfter } : {}),
      ...(!ok || (m.method === 'POST' && !location) ? { body: r.body } : {}),
    });
    if (!ok) break;
  }
  return { results, changed };
}

/** The route: `POST /sync/batch.json` (and its `.xml` twin answers 404: a batch is JSON only). */
export function batchRoute(app: FastifyInstance): void {
  const config: RouteConfig = { allow: ['POST'], spec: { style: 'resource', POST: async () => ({ kind: 'empty' }) }, json: true };
  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/sync/batch.json', config,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const mutations = parseBatch(Buffer.isBuffer(req.body) ? req.body : undefined);
      const { results, changed } = await runBatch(app, req, mutations);
      // The batch's own key keeps its answer when any mutation committed (D244's rule, per batch).
      if (changed) await keepKey(app.store, req);
      const done = results.length === mutations.length && results.every((x) => x.status < 300);
      reply.code(200).type('application/json; charset=utf-8')
        .send(JSON.stringify({ done, count: mutations.length, results }));
      return reply;
    },
  });
}
