// The HTTP server: Fastify with one plugin per resource. Cross-cutting rules live here, in the
// order the contract gives (§4.5): local security (Host, Origin), authentication (401), route
// and method (404/405), body size (413, Fastify's body limit), then the handlers.

import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { ApiError } from '../service/context.ts';
import { Authenticator } from '../service/auth.ts';
import { AuthLimiter, RateLimiter, type GuardOptions, type RateOptions } from '../service/limits.ts';
import { StoreUnavailable, type Store } from '../store/types.ts';
import { BODY_LIMIT, preflight, prefersJson, sendError } from './api.ts';
import { uiPlugin } from './ui.ts';
import { ResponseCache } from './cache.ts';
import projects from './plugins/projects.ts';
import people from './plugins/people.ts';
import companies from './plugins/companies.ts';
import categories from './plugins/categories.ts';
import posts from './plugins/posts.ts';
import comments from './plugins/comments.ts';
import milestones from './plugins/milestones.ts';
import todoLists from './plugins/todo-lists.ts';
import todoItems from './plugins/todo-items.ts';
import timeEntries from './plugins/time-entries.ts';
import sync from './plugins/sync.ts';
import { idempotency } from './idempotency.ts';

export interface AppOptions {
  readonly store: Store;
  /** The host the server is bound to; with a loopback host, other Host headers are refused. */
  readonly host?: string;
  /** Extra Host names to accept (a team server behind a name). */
  readonly allowedHosts?: readonly string[];
  /** Directory of the built renderer, served at `/`. */
  readonly uiDir?: string | null;
  readonly logLevel?: string;
  readonly requestTimeoutMs?: number;
  /** Bytes of rendered GET responses kept for re-use (0 turns the cache off). */
  readonly responseCacheBytes?: number;
  /**
   * Behind a reverse proxy: take the client address, scheme and Host from X-Forwarded-For,
   * -Proto and -Host when the request comes from these proxies (Fastify's `trustProxy`:
   * `true`, `'loopback'`, addresses or CIDRs, comma-separated). Off by default.
   */
  readonly trustProxy?: boolean | string;
  /** Brute-force protection on authentication (D62). Off by default; the CLI turns it on off loopback. */
  readonly authGuard?: boolean | GuardOptions;
  /** Per-person request rate (D63). Off by default (the contract's local service has none). */
  readonly rateLimit?: RateOptions | null;
}

/** Seconds a client should wait before retrying while the database is unavailable. */
const RETRY_AFTER_S = '2';
const unavailable = (): ApiError => new ApiError(503, ['The database is unavailable; retry later'], { 'Retry-After': RETRY_AFTER_S });

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
/**
 * Did a browser say the request came from another site (fetch metadata)? A page on another
 * origin (another port of 127.0.0.1 is `same-site`) must not reach the API with the user's cached
 * credentials, whatever element made the request; `none` is the user's own navigation (address
 * bar, bookmark). Clients that send no fetch metadata (every non-browser client) are not affected.
 */
export function fetchSiteAllowed(site: string | undefined): boolean {
  if (site === undefined) return true;
  const s = site.toLowerCase();
  return s === 'same-origin' || s === 'none';
}

/**
 * Is the Host header one this server answers to (DNS-rebinding guard)? Loopback names and the
 * `--allow-host` names, whatever the bound address: a server bound to a routable address was
 * given its names explicitly (the CLI refuses to start without them).
 */
export function hostAllowed(hostHeader: string | undefined, _bound: string, extra: readonly string[]): boolean {
  if (!hostHeader) return false;
  const name = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.replace(/:\d+$/, '');
  return LOOPBACK.has(name.toLowerCase()) || extra.includes(name.toLowerCase());
}

/** A web page from another origin may not call the API with the user's cached credentials. */
function originAllowed(req: FastifyRequest, host: string | undefined): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const bound = opts.host ?? '127.0.0.1';
  const extraHosts = (opts.allowedHosts ?? []).map((h) => h.toLowerCase());
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    logger: opts.logLevel && opts.logLevel !== 'silent' ? { level: opts.logLevel } : false,
    requestTimeout: opts.requestTimeoutMs ?? 30_000,
    connectionTimeout: 0,
    keepAliveTimeout: 5_000,
    // `//projects/7.xml` is `/projects/7.xml` (§2.1); nothing else is rewritten.
    rewriteUrl: (req) => (req.url ?? '/').replace(/^\/{2,}/, '/'),
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true, maxParamLength: 200 },
    return503OnClosing: true,
    trustProxy: opts.trustProxy ?? false,
  });
  app.decorate('store', opts.store);
  app.decorate('responses', new ResponseCache(opts.responseCacheBytes));
  const guard = opts.authGuard ? new AuthLimiter(opts.store, opts.authGuard === true ? {} : opts.authGuard) : null;
  const auth = new Authenticator(opts.store, 1024, { guard });
  const rate = opts.rateLimit ? new RateLimiter(opts.store, opts.rateLimit) : null;

  // Bodies are read as bytes whatever the Content-Type (§2.4): never a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0];
    req.wantsJson = path.endsWith('.json') || prefersJson(req.headers.accept);
    // Behind a trusted proxy, the Host the client asked for is X-Forwarded-Host (Fastify's req.host).
    const host = opts.trustProxy ? req.host : req.headers.host;
    if (!hostAllowed(host, bound, extraHosts)) {
      sendError(reply, new ApiError(403, ['Host not allowed']), req.wantsJson);
      return reply;
    }
    if (!originAllowed(req, host)) {
      sendError(reply, new ApiError(403, ['Cross-origin requests are not allowed']), req.wantsJson);
      return reply;
    }
    const cfg = req.routeOptions.config as { public?: boolean; ui?: boolean };
    // The UI's own files stay loadable from anywhere (a link to the app works); the API does not.
    if (!cfg.ui && !fetchSiteAllowed(req.headers['sec-fetch-site'] as string | undefined)) {
      sendError(reply, new ApiError(403, ['Requests made by another site are not allowed']), req.wantsJson);
      return reply;
    }
    if (cfg.public) return;
    // One read of the store's change token serves the credential cache and the response cache.
    req.changeToken = await opts.store.changeToken();
    const caller = await auth.authenticate(req.headers.authorization, req.changeToken, req.ip);
    if (!caller) {
      sendError(reply, new ApiError(401, ['Authentication required: HTTP Basic with user name and password, or token:X']), req.wantsJson);
      return reply;
    }
    req.caller = caller;
    if (rate) await rate.admit(caller.id);
    const pre = preflight(req);
    if (pre) {
      sendError(reply, pre, req.wantsJson);
      return reply;
    }
  });

  idempotency(app, opts.store);

  // Every response carries a bare Status header (§4.1; an old PHP client reads it).
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('Status', String(reply.statusCode));
    done(null, payload);
  });

  app.setErrorHandler((err, req, reply) => {
    const json = req.wantsJson === true;
    if (err instanceof ApiError) return sendError(reply, err, json);
    // The database is restarting or out of reach: the client may retry; the store reconnects by itself.
    if (err instanceof StoreUnavailable) return sendError(reply, unavailable(), json);
    const e = err as { statusCode?: number; code?: string; message: string };
    const status = e.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const msg = e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'Request body is too large (maximum is 1 MiB)' : e.message;
      return sendError(reply, new ApiError(status === 415 ? 400 : status, [msg]), json);
    }
    req.log.error(err);
    return sendError(reply, new ApiError(500, ['Internal server error']), json);
  });

  app.setNotFoundHandler((req, reply) => {
    sendError(reply, new ApiError(404, ['No such route']), req.wantsJson === true);
  });

  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'], url: '/health', config: { public: true },
    handler: async (req, reply) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(reply, new ApiError(405, ['Use GET'], { Allow: 'GET' }), req.wantsJson === true);
      // Healthy means the store answers too (a team server whose database is restarting is not).
      if (!(await opts.store.reachable())) {
        reply.code(503).header('Retry-After', RETRY_AFTER_S).type('application/json').send('{"status":"unavailable","store":"unreachable"}');
        return;
      }
      reply.type('application/json').send('{"status":"ok"}');
    },
  });

  for (const plugin of [projects, people, companies, categories, posts, comments, milestones, todoLists, todoItems, timeEntries, sync]) {
    await app.register(plugin);
  }
  if (opts.uiDir) await app.register(uiPlugin, { dir: opts.uiDir });
  return app;
}
