// The HTTP server: Fastify with one plugin per resource. Cross-cutting rules live here, in the
// order the contract gives (§4.5): local security (Host, Origin), authentication (401), route
// and method (404/405), body size (413, Fastify's body limit), then the handlers.

import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from './node-http.ts';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { RecordTexts, xmlErrors } from '../../shared/codec/out.ts';
import { ApiError, type Caller } from '../service/context.ts';
import { Authenticator } from '../service/auth.ts';
import { AuthLimiter, RateLimiter, type GuardOptions, type RateOptions } from '../service/limits.ts';
import { StoreUnavailable, type Store } from '../store/types.ts';
import { BODY_LIMIT, preflight, prefersJson, routeConfig, sendError } from './api.ts';
import { ThinPath } from './fast.ts';
import { uiPlugin } from './ui.ts';
import { ClassicResponse } from './headers.ts';
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
import { syncPlugin } from './plugins/sync-local.ts';
import type { SyncPort } from '../service/sync.ts';
import changes, { type StreamWaker } from './plugins/changes.ts';
import overviewRoutes from './plugins/overview.ts';
import setup from './plugins/setup.ts';
import sync from './plugins/sync.ts';
import { idempotency } from './idempotency.ts';
import { batchGuard } from './batch.ts';
import type { KeyCap } from '../service/idempotency.ts';

/** The API's route plugins, one per resource, in the order the reference (docs/api.md) lists them. */
export const API_PLUGINS = {
  projects, people, companies, categories, posts, comments, milestones, todoLists, todoItems, timeEntries, sync,
} as const;

declare module 'fastify' {
  interface FastifyInstance {
    /** The thin path for GETs (http/fast.ts), null when off. */
    thinPath: ThinPath | null;
  }
}

/** Records' XML text kept for lists and single records by default (D219, D223): the 20,000 todo items of bench:api take ~21 MB. */
const RECORD_TEXT_BYTES = 32 * 1024 * 1024;

export interface AppOptions {
  readonly store: Store;
  /** The host the server is bound to (beyond loopback, an Origin may also be https: a TLS proxy in front). */
  readonly host?: string;
  /** Extra Host names to accept (a team server behind a name). */
  readonly allowedHosts?: readonly string[];
  /** Directory of the built renderer, served at `/`. */
  readonly uiDir?: string | null;
  readonly logLevel?: string;
  /** Where the log's lines (JSON, one per call) go; default stdout. The desktop app gives its log file's (D235). */
  readonly logStream?: { write(line: string): void };
  readonly requestTimeoutMs?: number;
  /**
   * How long an idle keep-alive connection stays open (default 5 s). A team server behind a load
   * balancer needs longer than the balancer's own idle timeout (D140).
   */
  readonly keepAliveMs?: number;
  /**
   * The server serves a network: the first-run setup is not offered over HTTP (D240). Default: bound beyond
   * loopback or behind a trusted proxy; the server also counts a PostgreSQL store (server.ts servesNetwork).
   */
  readonly network?: boolean;
  /** Called after the first-run setup created the account (docs/setup.md). */
  readonly onAccountCreated?: () => Promise<void>;
  /** Bytes of rendered GET responses kept for re-use (0 turns the cache off). */
  readonly responseCacheBytes?: number;
  /** Bytes of records' XML text kept for re-use in lists and single records (D219, D223; default 32 MiB, 0 turns it off). */
  readonly recordTextBytes?: number;
  /** The sync engine of a replica (issue #8): adds the local /sync/* routes. */
  readonly sync?: SyncPort | null;
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
  /**
   * Answer GETs of resource routes on the thin path in front of Fastify (http/fast.ts, D190). On by
   * default; the same bytes either way (tests/electron/http/fast.test.ts compares them).
   */
  readonly thinPath?: boolean;
  /** What one person's stored Idempotency-Key answers may hold (D244; default 10,000 keys, 16 MiB). */
  readonly idempotencyCap?: KeyCap;
}

/** Seconds a client should wait before retrying while the database is unavailable. */
const RETRY_AFTER_S = '2';
const unavailable = (): ApiError => new ApiError(503, ['The database is unavailable; retry later'], { 'Retry-After': RETRY_AFTER_S });

/** Log levels at which Fastify logs every request (each then gets a child logger with its id). */
const REQUEST_LEVELS = new Set(['trace', 'debug', 'info']);

/** The router's options: Fastify's and the thin path's (http/fast.ts), which must match alike. */
const ROUTER_OPTIONS = { ignoreTrailingSlash: false, caseSensitive: true, maxParamLength: 200 };
/** `//projects/7.xml` is `/projects/7.xml` (§2.1); nothing else is rewritten. */
const rewriteUrl = (url: string): string => url.replace(/^\/{2,}/, '/');
const unauthenticated = (): ApiError => new ApiError(401, ['Authentication required: HTTP Basic with user name and password, or token:X']);

/** The API error a thrown error answers as (the error handler's rule, but for 413); a 500 is logged. */
function failure(err: unknown, log: FastifyBaseLogger): ApiError {
  if (err instanceof ApiError) return err;
  // The database is restarting or out of reach: the client may retry; the store reconnects by itself.
  if (err instanceof StoreUnavailable) return unavailable();
  const e = err as { statusCode?: number; code?: string; message: string };
  const status = e.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status === 415 ? 400 : status, [e.message]);
  log.error(err);
  return new ApiError(500, ['Internal server error']);
}

const LOOPBACK_BIND = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** A Host header (or an --allow-host entry): name (lower case) and port (null when absent), or null. */
const HOST_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/;
export function parseHost(s: string): { name: string; port: number | null } | null {
  const m = HOST_RE.exec(s);
  if (!m) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && (port < 1 || port > 65535)) return null;
  return { name: m[1].toLowerCase(), port };
}

const LOOPBACK_V4 = /^127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** A loopback name as a Host header spells it (lower case): `localhost`, `[::1]` or a literal 127.0.0.0/8 address. */
export const loopbackName = (name: string): boolean => name === 'localhost' || name === '[::1]' || LOOPBACK_V4.test(name);
/** Is the bound address a loopback one (`localhost`, `::1`, any 127.0.0.0/8 address)? */
const isLoopbackBind = (host: string): boolean => LOOPBACK_BIND.has(host) || loopbackName(host);

/**
 * Is the Host header one this server answers to (DNS-rebinding guard, D24, D239)? Exactly a loopback name
 * (`localhost`, `[::1]`, a literal 127.0.0.0/8 address) on any port or none, or an --allow-host entry, nothing
 * before or after it. The name is the defence: a page on `evil.example` that resolves to 127.0.0.1 still
 * sends `Host: evil.example`, and no page can make a browser send a loopback name it was not loaded from.
 * The port is not compared for a loopback name: whatever forwards a port (an SSH tunnel, `docker -p`, a TCP
 * proxy) or leaves it out (an old client sending `Host: 127.0.0.1`) names this server all the same.
 * An --allow-host entry without a port accepts that name on any port or none; with a port
 * (`bivouac.lan:8080`), exactly that port, a Host without a port meaning `defaultPort` (80; 443 for https
 * behind a TLS proxy). The bound address does not matter: a server bound beyond loopback was given its
 * names with --allow-host (the CLI refuses to start without them, D61).
 */
export function hostAllowed(hostHeader: string | undefined, extra: readonly string[], defaultPort = 80): boolean {
  if (!hostHeader) return false;
  const h = parseHost(hostHeader);
  if (!h) return false;
  if (loopbackName(h.name)) return true;
  for (const e of extra) {
    const x = parseHost(e);
    if (!x || x.name !== h.name) continue;
    if (x.port === null || x.port === (h.port ?? defaultPort)) return true;
  }
  return false;
}

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

const ORIGIN_RE = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\s]+)$/i;

/**
 * A web page from another origin may not call the API with the user's cached credentials. The Origin
 * (when a browser sends one) must be this server's own: scheme (`http`; also `https` for a team server,
 * which sits behind a TLS proxy), host and port, compared with the Host header (checked above).
 */
export function originAllowed(origin: string | undefined, hostHeader: string | undefined, tlsProxy: boolean): boolean {
  if (origin === undefined) return true;
  const m = ORIGIN_RE.exec(origin);
  if (!m || !hostHeader) return false;
  const scheme = m[1].toLowerCase();
  if (scheme !== 'http' && !(tlsProxy && scheme === 'https')) return false;
  const o = parseHost(m[2]);
  const h = parseHost(hostHeader);
  if (!o || !h || o.name !== h.name) return false;
  const dflt = scheme === 'https' ? 443 : 80;
  return (o.port ?? dflt) === (h.port ?? 80) || (tlsProxy && (o.port ?? dflt) === (h.port ?? dflt));
}

/**
 * Close a connection without destroying an answer the client has not read yet. Closing a socket with
 * unread request bytes makes the kernel send a reset, which can discard the answer on the client's side
 * (a client that writes its whole body before reading never sees the 413 or 431). So: finish writing
 * (FIN), keep reading and discarding what the client still sends, up to LINGER_BYTES or LINGER_MS,
 * and close when the client does.
 */
const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 10_000;
function lingeringClose(socket: Duplex): void {
  if (socket.destroyed) return;
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.on('data', (d: Buffer) => { seen += d.length; if (seen > LINGER_BYTES) socket.destroy(); });
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.end();
  socket.resume();
}

/** JSON for an error the framework raised before a route was found: a `.json` path or an Accept that prefers it. */
function rawWantsJson(requestHead: string): boolean {
  const path = /^[^ ]* ([^ ?\r\n]*)/.exec(requestHead)?.[1] ?? '';
  if (path.endsWith('.json')) return true;
  return prefersJson(/\r\naccept:[ \t]*([^\r\n]*)/i.exec(requestHead)?.[1]);
}

/** An error document written straight to the socket (the HTTP parser gave up: no request object exists). */
function clientError(err: { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writableEnded) return; // a later parse error of data sent after our answer: keep discarding
  if (!socket.writable || socket.bytesWritten > 0) { socket.destroy(); return; }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message = status === 431 ? 'Request headers are too large'
    : status === 408 ? 'The request took too long to arrive'
      : err.code === 'HPE_INVALID_METHOD' ? 'Unknown HTTP method'
        : 'Malformed HTTP request';
  const json = rawWantsJson(Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 8192).toString('latin1') : '');
  const body = json ? JSON.stringify({ errors: [message] }) : xmlErrors([message]);
  socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: ${json ? 'application/json' : 'application/xml'}; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nStatus: ${status}\r\nConnection: close\r\n\r\n${body}`);
  lingeringClose(socket);
}

/** Errors Fastify's router raises before any hook runs (a bad percent-encoding, an over-long parameter). */
function frameworkError(err: Error & { code?: string }, req: FastifyRequest, reply: FastifyReply): void {
  const json = rawWantsJson(`${req.raw.method} ${req.raw.url}\r\naccept: ${req.raw.headers.accept ?? ''}`);
  const e = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? new ApiError(404, ['No such route'])
    : err.code === 'FST_ERR_BAD_URL' ? new ApiError(400, ['The path is not valid percent-encoded UTF-8'])
      : new ApiError(400, ['Bad request']);
  reply.header('Status', String(e.status));
  sendError(reply, e, json);
}

/** Fastify's schema compilers, for an app without route schemas (D208): asked to compile one, they refuse. */
const noSchemaCompiler = () => (route: { method?: string; url?: string }): never => {
  throw new Error(`route schemas are not used in this app (validation is the registry's): ${route.method ?? ''} ${route.url ?? ''}`);
};
const NO_SCHEMAS = { compilersFactory: { buildValidator: noSchemaCompiler, buildSerializer: noSchemaCompiler } } as unknown as FastifyServerOptions['schemaController'];

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const bound = opts.host ?? '127.0.0.1';
  const tlsProxy = !LOOPBACK_BIND.has(bound) || Boolean(opts.trustProxy);
  const extraHosts = (opts.allowedHosts ?? []).map((h) => h.toLowerCase());
  const app = Fastify({
    bodyLimit: BODY_LIMIT,
    logger: opts.logLevel && opts.logLevel !== 'silent' ? { level: opts.logLevel, ...(opts.logStream ? { stream: opts.logStream } : {}) } : false,
    requestTimeout: opts.requestTimeoutMs ?? 30_000,
    connectionTimeout: 0,
    keepAliveTimeout: opts.keepAliveMs ?? 5_000,
    rewriteUrl: (req) => rewriteUrl(req.url ?? '/'),
    routerOptions: { ...ROUTER_OPTIONS },
    return503OnClosing: true,
    trustProxy: opts.trustProxy ?? false,
    clientErrorHandler: clientError,
    frameworkErrors: frameworkError,
    // No child logger per request unless requests are logged (info and below): at the default level
    // only errors are logged, and a pino child per request cost ~4 µs (D122).
    childLoggerFactory: (logger, bindings, childOpts) => (REQUEST_LEVELS.has(logger.level) ? logger.child(bindings, childOpts) : logger),
    // Conventionally capitalised header names on the wire (http/headers.ts).
    http: { ServerResponse: ClassicResponse as unknown as typeof ServerResponse },
    // No route declares a JSON schema (bodies are XML or JSON decoded in http/, validated by the registry):
    // Fastify's default compilers would load ajv and fast-json-stringify at every start, ~75 ms, for nothing.
    // A schema added to a route fails loudly when the route is registered (D208).
    schemaController: NO_SCHEMAS,
  });
  // CONNECT never reaches a route: Node hands it to 'connect' listeners, and with none it closes the
  // socket without a word. Answer it like any method the API does not take.
  app.server.on('connect', (_req: unknown, socket: Socket) => {
    const body = xmlErrors(['CONNECT is not allowed here']);
    socket.write(`HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, POST, PUT, DELETE\r\nContent-Type: application/xml; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nStatus: 405\r\nConnection: close\r\n\r\n${body}`);
    lingeringClose(socket);
  });
  app.decorate('store', opts.store);
  app.decorate('responses', new ResponseCache(opts.responseCacheBytes));
  app.decorate('texts', new RecordTexts(opts.recordTextBytes ?? RECORD_TEXT_BYTES));
  const guard = opts.authGuard ? new AuthLimiter(opts.store, opts.authGuard === true ? {} : opts.authGuard) : null;
  const auth = new Authenticator(opts.store, 1024, { guard });
  const rate = opts.rateLimit ? new RateLimiter(opts.store, opts.rateLimit) : null;
  const { store } = opts;

  // The checks of every request, shared by the onRequest hook and the thin path (http/fast.ts).
  /** Host, Origin and fetch metadata, in this order; `site` is not checked for the UI's own files. */
  const local = (host: string | undefined, defaultPort: number, origin: string | undefined, site: string | undefined, ui = false): ApiError | null => {
    if (!hostAllowed(host, extraHosts, defaultPort)) return new ApiError(403, ['Host not allowed']);
    if (!originAllowed(origin, host, tlsProxy)) return new ApiError(403, ['Cross-origin requests are not allowed']);
    // The UI's own files stay loadable from anywhere (a link to the app works); the API does not.
    if (!ui && !fetchSiteAllowed(site)) return new ApiError(403, ['Requests made by another site are not allowed']);
    return null;
  };
  /** The caller of a request, with the change token read for it (which also serves the response cache). */
  const identify = (authorization: string | undefined, token: string, ip: string | undefined, conn?: object): Promise<Caller | null> => {
    const check = () => auth.authenticate(authorization, token, ip, conn);
    return store.pin ? store.pin(token, (unpin) => check().finally(unpin)) : check();
  };

  // GETs of resource routes without a body are answered in front of Fastify, by the same functions
  // (http/fast.ts, D190); every other request goes to Fastify's own 'request' listener. Not behind a
  // trusted proxy (the client's address and Host come from X-Forwarded-*, which Fastify reads).
  if (opts.thinPath !== false && !opts.trustProxy) {
    let closing = false;
    const thin = new ThinPath({
      app, routerOptions: ROUTER_OPTIONS, rewriteUrl,
      local: (host, origin, site) => local(host, 80, origin, site),
      identify, unauthenticated, admit: rate ? (id) => rate.admit(id) : null,
      failure: (err) => failure(err, app.log),
      // While closing, Fastify answers 503; requests logged one by one are Fastify's to log.
      open: () => !closing && !REQUEST_LEVELS.has(app.log.level),
    });
    // First of the preClose hooks: Fastify has just begun answering 503.
    app.addHook('preClose', (done) => { closing = true; done(); });
    // Before any route is declared: the thin path's router gets every route Fastify's gets.
    app.addHook('onRoute', (route) => thin.see(route));
    const server = app.server;
    const fastifyListener = server.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
    server.removeListener('request', fastifyListener);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => { if (!thin.handle(req, res)) fastifyListener(req, res); });
    app.decorate('thinPath', thin);
  } else app.decorate('thinPath', null);

  // Bodies are read as bytes whatever the Content-Type (§2.4): never a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  app.addHook('onRequest', async (req, reply) => {
    // Content-Type is ignored (§2.4) except to tell a JSON body: keep it aside and show the framework a
    // type it always accepts, so that no Content-Type, however malformed, answers 415 or 400.
    const ct = req.raw.headers['content-type'];
    if (ct !== undefined) {
      req.bodyType = ct;
      req.raw.headers['content-type'] = 'application/octet-stream';
    }
    const url = req.url, q = url.indexOf('?');
    req.wantsJson = (q < 0 ? url : url.slice(0, q)).endsWith('.json') || prefersJson(req.headers.accept);
    // Behind a trusted proxy, the Host the client asked for is X-Forwarded-Host (Fastify's req.host),
    // and the scheme X-Forwarded-Proto (a Host without a port then means 443 for https).
    const host = opts.trustProxy ? req.host : req.headers.host;
    const cfg = routeConfig(req);
    const refused = local(host, opts.trustProxy && req.protocol === 'https' ? 443 : 80, req.headers.origin,
      req.headers['sec-fetch-site'] as string | undefined, cfg.ui === true);
    if (refused) {
      sendError(reply, refused, req.wantsJson);
      return reply;
    }
    if (cfg.public) return;
    // One read of the store's change token serves the credential cache and the response cache.
    const token = req.changeToken = await store.changeToken();
    const caller = await identify(req.headers.authorization, token, req.ip, req.raw.socket);
    if (!caller) {
      sendError(reply, unauthenticated(), req.wantsJson);
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

  // The token read above also serves the memos of the handler (D145): a callback hook, so the handler,
  // which Fastify calls from `done`, runs inside the pin.
  if (store.pin) {
    app.addHook('preHandler', (req, _reply, done) => {
      if (req.changeToken === undefined) done();
      else store.pin!(req.changeToken, (unpin) => { req.unpin = unpin; done(); });
    });
    app.addHook('onResponse', (req, _reply, done) => { req.unpin?.(); done(); });
  }

  // Before the Idempotency-Key hook: a mutation a batch may not hold claims no key (http/batch.ts).
  batchGuard(app);
  idempotency(app, opts.store, opts.idempotencyCap);

  // Every response carries a bare Status header (§4.1; an old PHP client reads it).
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('Status', String(reply.statusCode));
    done(null, payload);
  });

  app.setErrorHandler((err, req, reply) => {
    const json = req.wantsJson === true;
    if (!(err instanceof ApiError) && !(err instanceof StoreUnavailable) && (err as { statusCode?: number }).statusCode === 413) {
      // The body is not read: let the client send it and read the 413 before the connection closes.
      const socket = req.raw.socket;
      socket.destroySoon = () => lingeringClose(socket);
      req.raw.resume();
      reply.header('Connection', 'close');
      return sendError(reply, new ApiError(413, ['Request body is too large (maximum is 1 MiB)']), json);
    }
    return sendError(reply, failure(err, req.log), json);
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

  for (const plugin of Object.values(API_PLUGINS)) await app.register(plugin);
  // Not resource routes (the reference lists them from their own docs): the live change stream
  // (docs/changes-stream.md) and the first-run setup of an empty data directory.
  const waker: StreamWaker = { wake: () => undefined };
  await app.register(changes, { waker });
  // A write answered: open change streams look now, not at their next poll (D305).
  app.addHook('onResponse', (req, reply, done) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 400) waker.wake();
    done();
  });
  // The Overview (docs/api-extensions.md E7): an extension documented there, like the stream.
  await app.register(overviewRoutes);
  await app.register(setup, { onCreated: opts.onAccountCreated, sync: opts.sync, network: opts.network ?? (!isLoopbackBind(bound) || Boolean(opts.trustProxy)) });
  const syncPort = opts.sync;
  // A sync that brought changes: the open boards of this replica learn of them at once too.
  syncPort?.onChanged?.(() => waker.wake());
  if (syncPort) {
    await app.register(syncPlugin(syncPort));
    // Sync soon after a local write (never blocking it).
    app.addHook('onResponse', (req, reply, done) => {
      if (req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 400 && !req.url.startsWith('/sync/')) syncPort.nudge();
      done();
    });
  }
  if (opts.uiDir) await app.register(uiPlugin, { dir: opts.uiDir });
  return app;
}
