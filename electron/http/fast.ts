// The thin path (D190): a GET of a resource route, without a body, answered before Fastify.
//
// Fastify's per-request machinery (request and reply objects, the hook runners, the reply's header
// bookkeeping) cost ~20 µs of CPU of the ~40 µs a single-record GET spends outside its handler. This
// path runs the same functions as the Fastify route does, in the same order, and writes the same bytes:
// the route is found by the router Fastify itself uses (find-my-way, with the same options and every
// route Fastify has), then Host, Origin and fetch metadata (app.ts), authentication with the change
// token, the rate limiter, `preflightOf` (405/404), the store's pin, `answer` (response cache, handler,
// redaction, rendering), and the answer is written the way Fastify's reply does (content type
// defaults, `Status` (app.ts's onSend hook), `Content-Length`, one writeHead with the headers in the
// same order, through the same ServerResponse class). `tests/electron/http/fast.test.ts` compares the raw bytes
// of both paths for every GET route the app registers.
//
// Everything else goes to Fastify unchanged, decided before anything runs: other methods (HEAD
// included), a request with a body (Content-Length or Transfer-Encoding), a URL Fastify's router does
// not match or matches to a route that is not a resource GET (UI files, /health, the sync and setup
// routes, the change stream, action routes), while the app closes (Fastify's 503), when requests are
// logged (info and below) and behind a trusted proxy (X-Forwarded-*).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { RouteOptions } from 'fastify';
import { xmlErrors } from '../../shared/codec/out.ts';
import type { ApiError, Caller } from '../service/context.ts';
import { answer, preflightOf, prefersJson, type Answerer, type Handler, type RouteConfig, type RouteSpec } from './api.ts';
import type { Rendered } from './cache.ts';

// The router and content-type parser of the Fastify installed (resolved from Fastify's own folder: the
// same copy, hence the same matching and decoding of paths and query strings).
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
interface Found<S> {
  readonly params: Record<string, string>;
  readonly store: S;
  readonly searchParams: Record<string, string | string[] | undefined>;
}
interface Router<S> {
  on(method: string, path: string, handler: () => void, store: S): void;
  find(method: string, path: string): Found<S> | null;
}
const FindMyWay = fastifyRequire('find-my-way') as (opts: Record<string, unknown>) => Router<never>;
const ContentType = fastifyRequire('./lib/content-type.js') as {
  from(v: string | undefined): { readonly isEmpty: boolean; readonly mediaType: string; readonly parameters: Map<string, string>; toString(): string };
};

const XML_TYPE = 'application/xml; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const noop = (): void => undefined;

/**
 * What a matched route is to the thin path: its config, whether the thin path takes its GETs (a resource
 * route; one without a GET handler answers 405 after authentication, as in Fastify), and its GET handler.
 */
interface Entry { readonly cfg: RouteConfig; readonly thin: boolean; readonly get: Handler | null }

/** What the thin path shares with the app's hooks (app.ts): the same functions, not copies. */
export interface ThinDeps {
  /** The app (its store and caches, as `answer` reads them). */
  readonly app: Answerer;
  /** Fastify's router options (`routerOptions`). */
  readonly routerOptions: Record<string, unknown>;
  /** Fastify's `rewriteUrl`. */
  readonly rewriteUrl: (url: string) => string;
  /** Host, Origin and fetch metadata (onRequest hook's first checks): the error to answer, or null. */
  readonly local: (host: string | undefined, origin: string | undefined, site: string | undefined) => ApiError | null;
  /** Authentication with the change token (the onRequest hook's, pinned on a store that pins). */
  readonly identify: (authorization: string | undefined, token: string, ip: string | undefined, conn?: object) => Promise<Caller | null>;
  /** The 401 the onRequest hook answers. */
  readonly unauthenticated: () => ApiError;
  /** The rate limiter, when one is on. */
  readonly admit: ((personId: number) => Promise<void>) | null;
  /** The error handler's rule: the API error a thrown error answers as (logs a 500). */
  readonly failure: (err: unknown) => ApiError;
  /** False while the app closes or requests are logged: Fastify answers. */
  readonly open: () => boolean;
}

/** Hooks a route may carry in its own options: such a route is left to Fastify. */
const ROUTE_HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError', 'onTimeout', 'onRequestAbort'] as const;

export class ThinPath {
  private readonly deps: ThinDeps;
  private readonly router: Router<Entry>;
  /** Set when a route uses a constraint (none does): the router here would not match like Fastify's. */
  private off = false;
  private readonly paths: { readonly url: string; readonly thin: boolean }[] = [];
  /** Requests this path answered (tests check that it was taken). */
  answered = 0;
  /** Answers it wrote as Latin-1 (D211; tests check which way an answer went). */
  latin1 = 0;

  constructor(deps: ThinDeps) {
    this.deps = deps;
    this.router = FindMyWay({ ...deps.routerOptions }) as unknown as Router<Entry>;
  }

  /**
   * Fastify's onRoute hook: every route with GET enters this router, so that a URL matches here the
   * route it matches in Fastify's (a static path before a parametric one); only resource GETs are taken.
   */
  see(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('GET')) return;
    if (route.constraints && Object.keys(route.constraints).length > 0) { this.off = true; return; }
    const cfg = (route.config ?? {}) as Partial<RouteConfig> & { public?: boolean; ui?: boolean };
    const spec: RouteSpec | undefined = cfg.spec;
    const ownHooks = ROUTE_HOOKS.some((h) => route[h] !== undefined);
    const thin = spec !== undefined && spec.style === 'resource' && cfg.allow !== undefined && !cfg.public && !cfg.ui && !ownHooks;
    this.router.on('GET', route.url, noop, { cfg: cfg as RouteConfig, thin, get: thin ? spec.any ?? spec.GET ?? null : null });
    this.paths.push({ url: route.url, thin });
  }

  /** Every GET route of the app (as declared), and whether this path takes it. */
  routes(): readonly { readonly url: string; readonly thin: boolean }[] { return this.paths; }

  /** The 'request' listener in front of Fastify's: true when this path answers the request. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET' || this.off) return false;
    const h = req.headers;
    if (h['content-length'] !== undefined || h['transfer-encoding'] !== undefined || !this.deps.open()) return false;
    const url = this.deps.rewriteUrl(req.url ?? '/');
    const found = this.router.find('GET', url);
    if (found === null || !found.store.thin) return false;
    this.answered++;
    // run() answers its own errors; should writing that answer fail too, the connection is cut (logged).
    this.run(req, res, url, found).catch((e: unknown) => { this.deps.failure(e); res.destroy(); });
    return true;
  }

  private async run(req: IncomingMessage, res: ServerResponse, url: string, found: Found<Entry>): Promise<void> {
    const d = this.deps;
    const h = req.headers;
    const q = url.indexOf('?');
    const json = (q < 0 ? url : url.slice(0, q)).endsWith('.json') || prefersJson(h.accept);
    try {
      const local = d.local(h.host, h.origin, h['sec-fetch-site'] as string | undefined);
      if (local) { this.error(res, local, json); return; }
      const { store } = d.app;
      const token = await store.changeToken();
      const caller = await d.identify(h.authorization, token, req.socket.remoteAddress, req.socket);
      if (!caller) { this.error(res, d.unauthenticated(), json); return; }
      if (d.admit) await d.admit(caller.id);
      const { cfg, get } = found.store;
      const pre = preflightOf(cfg, 'GET', found.params);
      if (pre) { this.error(res, pre, json); return; }
      const asked = {
        caller, handler: get!, method: 'GET', params: found.params, query: found.searchParams, root: null, json, url,
        changeToken: token, bodyLength: 0, readOnly: null,
      } as const;
      // The handler runs inside the store's pin of the token read above (D145), released when the
      // response is done, as the app's preHandler/onResponse hooks do.
      const out = store.pin
        ? await store.pin(token, (unpin) => { res.once('close', unpin); return answer(d.app, asked); })
        : await answer(d.app, asked);
      this.write(res, out);
    } catch (err) {
      if (res.headersSent) { res.destroy(); return; }
      this.error(res, d.failure(err), json);
    }
  }

  /** `write` of api.ts: the rendered answer's status, headers and type. */
  private write(res: ServerResponse, r: Rendered): void {
    const headers: Record<string, string> = {};
    for (const k in r.headers) headers[k.toLowerCase()] = r.headers[k];
    if (r.type) headers['content-type'] = r.type;
    this.send(res, r.status, headers, r.body, r.ascii === true);
  }

  /** `sendError` of api.ts. */
  private error(res: ServerResponse, e: ApiError, json: boolean): void {
    const headers: Record<string, string> = {};
    for (const k in e.headers) headers[k.toLowerCase()] = e.headers[k];
    if (e.status === 401) headers['www-authenticate'] = 'Basic realm="Bivouac"';
    headers['content-type'] = json ? JSON_TYPE : XML_TYPE;
    this.send(res, e.status, headers, json ? JSON.stringify({ errors: e.messages }) : xmlErrors(e.messages));
  }

  /**
   * Fastify's `reply.send` of a string or Buffer, the app's onSend hook (`Status`), then its `onSendEnd`
   * (Content-Length, one writeHead with the headers in the order they were set, `end`). An `ascii` body
   * (D211) is its own byte length and is written as Latin-1, the same bytes as UTF-8 for ASCII, without
   * the two scans of UTF-8 (its length, then its encoding): a 40 KB list spent ~12 µs on them.
   */
  private send(res: ServerResponse, status: number, headers: Record<string, string>, body: string | Buffer, ascii = false): void {
    const ct = headers['content-type'];
    if (typeof body === 'string') {
      if (ct !== XML_TYPE && ct !== JSON_TYPE) {
        const type = ContentType.from(ct);
        if (type.isEmpty) headers['content-type'] = 'text/plain; charset=utf-8';
        else if (type.mediaType.indexOf('json') !== -1 && !type.parameters.has('charset')) headers['content-type'] = `${type.toString()}; charset=utf-8`;
      }
    } else if (ContentType.from(ct).isEmpty) headers['content-type'] = 'application/octet-stream';
    headers.status = String(status);
    if ((status >= 100 && status < 200) || status === 204) {
      delete headers['content-type'];
      delete headers['content-length'];
      res.writeHead(status, headers);
      res.end();
      return;
    }
    const length = ascii ? body.length : Buffer.byteLength(body);
    const given = headers['content-length'];
    if (!given || Number(given) !== length) headers['content-length'] = String(length);
    res.writeHead(status, headers);
    // Node writes the head joined to a string body in the body's encoding: as Latin-1, a header value with a
    // character from U+0080 would go out as one byte, not UTF-8's two. The headers of the answers marked
    // ASCII are digits and fixed names (X-Records, X-Pages, X-Page, Status); tests/electron/http/fast.test.ts compares
    // every GET route's bytes with Fastify's.
    if (ascii) { this.latin1++; res.end(body, 'latin1'); }
    else res.end(body);
  }
}
