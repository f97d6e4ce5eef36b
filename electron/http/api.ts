// The route layer shared by every resource plugin. A route is declared once with its style,
// methods and handlers; this module registers it (plus its `.json` twin), checks methods (405),
// path ids (404), reads the body (400), and renders the handler's reply as XML or JSON from the
// registry. Handlers are plain operations: the action-style routes reuse the same ones.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Field, Resource, WireRecord } from '../../shared/registry.ts';
import {
  jsonMany, jsonOne, jsonPlain, xmlErrors, xmlMany, xmlOne, xmlPlain, type RecordTexts, type Row,
} from '../../shared/codec/out.ts';
import { BodyError, parseJson, parseXml, type XNode } from '../../shared/codec/in.ts';
import { ApiError, viewOf, type Caller, type Ctx } from '../service/context.ts';
import { redact } from '../service/redact.ts';
import { archivedGuard } from '../service/projects.ts';
import type { Queryable, Store } from '../store/types.ts';
import type { ResponseCache, Rendered } from './cache.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export const METHODS: readonly Method[] = ['GET', 'POST', 'PUT', 'DELETE'];
export const BODY_LIMIT = 1024 * 1024;

/** What a handler answers; the route layer turns it into XML or JSON. */
export type Reply =
  | { kind: 'one'; resource: Resource; row: Row; fields?: readonly Field[]; element?: string; me?: boolean; status?: number; headers?: Record<string, string> }
  | { kind: 'many'; resource: Resource; rows: readonly Row[]; fields?: readonly Field[]; root?: string; element?: string; attrs?: Record<string, string | number>; status?: number; headers?: Record<string, string> }
  | { kind: 'plain'; root: string; entries: readonly (readonly [string, Field['type'], unknown])[]; headers?: Record<string, string> }
  | { kind: 'empty' }
  /** A document of its own (the sync extension): rendered by the handler in the format asked for. */
  | { kind: 'custom'; json: () => string; xml: () => string; headers?: Record<string, string> };

export interface Req {
  readonly ctx: Ctx;
  readonly method: Method;
  readonly params: Readonly<Record<string, string>>;
  /** Path id parameter (already checked to be decimal digits). */
  id(name: string): number;
  /** First value of a query parameter; '' and absent are both undefined unless raw. */
  query(name: string, raw?: boolean): string | undefined;
  /** Parsed body (routes with `body: true`), null for an empty one. */
  readonly root: XNode | null;
}

export type Handler = (r: Req) => Promise<Reply>;

export interface RouteSpec {
  readonly style: 'resource' | 'action';
  /** The route reads a request body (creates, updates, reorders, selectors). */
  readonly body?: boolean;
  /** Action routes: one handler for GET, POST, PUT and DELETE. */
  readonly any?: Handler;
  readonly GET?: Handler;
  readonly POST?: Handler;
  readonly PUT?: Handler;
  readonly DELETE?: Handler;
  /** Params that are not ids (checked by the handler). */
  readonly free?: readonly string[];
  /** Get-one-message routes: a comma in this param is 400 (§2.1). */
  readonly commaIs400?: string;
}

export interface RouteConfig {
  readonly allow: readonly Method[];
  readonly spec: RouteSpec;
  readonly json: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller; wantsJson?: boolean; changeToken?: string;
    /** Ends the store's pin of this request's token (D145): work it left running reads a fresh one. */
    unpin?: () => void;
    /**
     * The route's config, read once per request by the onRequest hook (Fastify's `routeOptions`
     * getter builds a new object on every read).
     */
    routeCfg?: Partial<RouteConfig> & { public?: boolean; ui?: boolean };
    /** The request's Content-Type as sent (the framework is shown a neutral one, see app.ts). */
    bodyType?: string;
  }
  interface FastifyInstance { store: Store; responses: ResponseCache; texts: RecordTexts }
}

const MAX_ID = Number.MAX_SAFE_INTEGER;
export const isId = (s: string | undefined): boolean => s !== undefined && /^\d{1,16}$/.test(s) && Number(s) > 0 && Number(s) <= MAX_ID;

/** Register a route and its `.json` twin. */
export function route(app: FastifyInstance, path: string, spec: RouteSpec): void {
  const allow = spec.any ? METHODS : METHODS.filter((m) => spec[m]);
  const paths = path.endsWith('.xml') ? [[path, false], [`${path.slice(0, -4)}.json`, true]] as const : [[path, false]] as const;
  for (const [url, json] of paths) {
    const config: RouteConfig = { allow, spec, json };
    // Every method reaches the route, so that others get 405 with Allow (§2.2).
    // The handler returns the reply it sent: an async onSend hook (idempotency) may still be running.
    app.route({ method: [...METHODS, 'PATCH', 'OPTIONS'], url, config, handler: async (req, reply) => { await dispatch(app, req, reply, spec); return reply; } });
  }
}

/** HEAD is answered like GET (Node leaves the body out). */
const asMethod = (m: string): Method => (m === 'HEAD' ? 'GET' : m) as Method;

/** The route's config, once per request (see `routeCfg`). */
export function routeConfig(req: FastifyRequest): NonNullable<FastifyRequest['routeCfg']> {
  return (req.routeCfg ??= req.routeOptions.config as NonNullable<FastifyRequest['routeCfg']>);
}

/** Checks that belong before the body is read: method (405) and path ids (404), §4.5. */
export function preflight(req: FastifyRequest): ApiError | null {
  return preflightOf(routeConfig(req), req.method, req.params as Record<string, string>);
}

/** `preflight` of a route's config, a method and path params. */
export function preflightOf(cfg: Partial<RouteConfig>, reqMethod: string, params: Readonly<Record<string, string>>): ApiError | null {
  if (!cfg.allow) return null;
  if (!cfg.allow.includes(asMethod(reqMethod))) {
    return new ApiError(405, [`${reqMethod} is not allowed here`], { Allow: cfg.allow.join(', ') });
  }
  for (const k in params) {
    const v = params[k];
    if (cfg.spec!.free?.includes(k)) continue;
    if (cfg.spec!.commaIs400 === k && v.includes(',')) return new ApiError(400, ['Only one message id may be given']);
    if (!isId(v)) return new ApiError(404, ['Record not found']);
  }
  return null;
}

/**
 * The store as a HEAD request sees it: reads pass, a write is refused before it starts (405). An
 * action route runs one handler for every method, so HEAD of `/todos/delete_item/{id}` would delete;
 * with this view no handler can change anything on HEAD, whatever it does.
 */
function readOnly(store: Store, allow: readonly Method[]): Store {
  const refuse = (): Promise<never> => Promise.reject(new ApiError(405, ['HEAD cannot change anything: use GET or POST'], { Allow: allow.join(', ') }));
  // Every other member passes through to the store, whatever the Store interface grows to hold.
  return new Proxy(store, {
    get(target, key) {
      if (key === 'run' || key === 'write') return refuse;
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * The claim of a request's Idempotency-Key in the transaction of its write (D340; http/idempotency.ts makes
 * it): `before` inside each write transaction until one committed the claim, `after` once that one committed.
 */
export interface KeyClaim { before(w: Queryable): Promise<void>; after(): void }

/**
 * The store, telling `onCommit` when a write through it committed (a transaction, or a statement that changed
 * rows). With `claim` (an Idempotency-Key not claimed yet, D340), each write claims the key in its own
 * transaction, and a statement of its own runs in one too, so that the claim commits with it.
 */
function committing(store: Store, onCommit: () => void, claim?: KeyClaim): Store {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'write') {
        return async <T>(fn: Parameters<Store['write']>[0]): Promise<T> => {
          const r = await target.write(claim ? async (w) => { await claim.before(w); return fn(w); } : fn);
          claim?.after();
          onCommit();
          return r as T;
        };
      }
      if (key === 'run') {
        return async (...a: Parameters<Store['run']>) => {
          const r = claim ? await target.write(async (w) => { await claim.before(w); return w.run(...a); }) : await target.run(...a);
          claim?.after();
          if (r.changes) onCommit();
          return r;
        };
      }
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const decoder = new TextDecoder('utf-8', { fatal: true });

async function readRaw(req: FastifyRequest): Promise<Buffer | undefined> {
  const raw = req.raw;
  if (!raw.headers['content-length'] && !raw.headers['transfer-encoding']) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of raw) {
    size += (c as Buffer).length;
    if (size > BODY_LIMIT) throw Object.assign(new Error('body too large'), { statusCode: 413 });
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Parse a body as XML, or as JSON when the client says it sent JSON (§8.14). */
export function parseBody(buf: Buffer | undefined, contentType: string | undefined): XNode | null {
  if (!buf || buf.length === 0) return null;
  let text: string;
  try { text = decoder.decode(buf); } catch { throw new ApiError(400, ['Request body is not valid UTF-8']); }
  try {
    return /^application\/([\w.+-]*\+)?json/i.test(contentType ?? '') ? parseJson(text) : parseXml(text);
  } catch (e) {
    if (e instanceof BodyError) throw new ApiError(400, [e.message]);
    throw e;
  }
}

export async function dispatch(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply, spec: RouteSpec): Promise<void> {
  const method = asMethod(req.method);
  const handler = spec.any ?? spec[method]!;
  const json = req.wantsJson === true;
  let root: XNode | null = null;
  // Resource routes read a body only on POST and PUT (creates, updates, reorders); their GET and
  // DELETE ignore any body (§2.5). Action routes with a body read it whatever the method.
  let buf: Buffer | undefined;
  if (spec.body && (spec.style === 'action' || method === 'POST' || method === 'PUT')) {
    buf = Buffer.isBuffer(req.body) ? req.body : method === 'GET' ? await readRaw(req) : undefined;
    root = parseBody(buf, req.bodyType);
  }
  write(reply, await answer(app, {
    caller: req.caller!, handler, method, params: req.params as Record<string, string>,
    query: req.query as Record<string, string | string[] | undefined>, root, json, url: req.url,
    changeToken: req.changeToken, bodyLength: buf?.length ?? 0,
    readOnly: req.method === 'HEAD' ? routeConfig(req).allow ?? METHODS : null,
    onCommit: req.idemKey === undefined ? undefined : () => { req.idemChanged = true; },
    claim: req.idemClaim,
  }));
}

/** What `answer` reads of the app: the store and the caches (a FastifyInstance has them). */
export type Answerer = Pick<FastifyInstance, 'store' | 'responses' | 'texts'>;

/** A request as `answer` needs it: who asks, which handler, and what the client sent. */
export interface Asked {
  readonly caller: Caller;
  readonly handler: Handler;
  /** The method the handler answers (HEAD is GET). */
  readonly method: Method;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string | string[] | undefined>>;
  readonly root: XNode | null;
  readonly json: boolean;
  /** The request's URL (after `//` → `/`), query string included: part of the response cache's key. */
  readonly url: string;
  /** The change token read by the authentication, when it read one. */
  readonly changeToken: string | undefined;
  readonly bodyLength: number;
  /** HEAD: the store is read-only, and a write is refused with these methods in Allow. */
  readonly readOnly: readonly Method[] | null;
  /** Called when the handler committed a write (an Idempotency-Key is kept only then, D244). */
  readonly onCommit?: () => void;
  /** The claim of the request's Idempotency-Key, made in the transaction of its write (D340; with `onCommit`). */
  readonly claim?: KeyClaim;
}

/**
 * The answer of a route's handler, as status, headers and body: the response cache, the handler,
 * redaction and rendering (the part of Fastify's route handler, `dispatch`, after the body).
 */
export async function answer(app: Answerer, a: Asked): Promise<Rendered> {
  const { store, responses } = app;
  const { caller, method, params, json } = a;
  // Reads without a body may be answered from the cache of rendered responses.
  const cacheable = method === 'GET' && !a.bodyLength && responses.enabled;
  const key = cacheable ? `${caller.id}\u0000${json ? 'j' : 'x'}\u0000${Math.floor(Date.now() / 86_400_000)}\u0000${a.url}` : '';
  const token = cacheable ? a.changeToken ?? await store.changeToken() : '';
  if (cacheable) {
    const hit = responses.get(key, token);
    if (hit) return hit;
  }
  const q = a.query;
  // A request that may write cannot write inside an archived project (D277).
  const base = method === 'GET' ? store : archivedGuard(store);
  const r: Req = {
    ctx: { store: a.readOnly ? readOnly(store, a.readOnly) : a.onCommit ? committing(base, a.onCommit, a.claim) : base, caller },
    method, params, root: a.root,
    id: (name) => Number(params[name]),
    query(name, raw = false) {
      const v = q[name];
      const first = Array.isArray(v) ? v[0] : v;
      return first === '' && !raw ? undefined : first;
    },
  };
  const answer = await a.handler(r);
  // What a client may not see inside the records it sees (D32): one place for every route and format.
  if (answer.kind === 'one') await redact(r.ctx, answer.resource, [answer.row], answer.fields);
  else if (answer.kind === 'many') await redact(r.ctx, answer.resource, answer.rows, answer.fields);
  const out = render(caller, answer, json, app.texts);
  if (cacheable && out.status === 200) responses.set(key, token, out);
  return out;
}

function write(reply: FastifyReply, r: Rendered): void {
  reply.code(r.status);
  for (const k in r.headers) reply.header(k, r.headers[k]);
  if (r.type) reply.type(r.type);
  reply.send(r.body);
}

/** Turn a handler's reply into status, headers and body, as XML or JSON. */
export function render(caller: Caller, out: Reply, json: boolean, texts?: RecordTexts): Rendered {
  if (out.kind === 'empty') return { status: 200, headers: {}, type: null, body: '' };
  if (out.kind === 'custom') {
    return json
      ? { status: 200, headers: { ...(out.headers ?? {}) }, type: 'application/json; charset=utf-8', body: out.json() }
      : { status: 200, headers: { ...(out.headers ?? {}) }, type: 'application/xml; charset=utf-8', body: out.xml() };
  }
  const headers: Record<string, string> = { ...(out.headers ?? {}) };
  const status = (out.kind === 'one' || out.kind === 'many') && out.status ? out.status : 200;
  const view = viewOf(caller, out.kind === 'one' && out.me === true);
  if (json) {
    let data: WireRecord | WireRecord[];
    if (out.kind === 'one') data = jsonOne(out.resource, out.row, view, out.fields);
    else if (out.kind === 'many') {
      if (out.attrs?.count !== undefined) headers['X-Count'] = String(out.attrs.count);
      if (out.attrs?.['continued-at'] !== undefined) headers['X-Continued-At'] = String(out.attrs['continued-at']);
      data = jsonMany(out.resource, out.rows, view, out.fields);
    } else data = jsonPlain(out.entries);
    return { status, headers, type: 'application/json; charset=utf-8', body: JSON.stringify(data) };
  }
  if (out.kind === 'plain') return { status, headers, type: 'application/xml; charset=utf-8', body: xmlPlain(out.root, out.entries) };
  const body = out.kind === 'one' ? xmlOne(out.resource, out.row, view, out.fields, out.element, undefined, texts) : xmlMany(out.resource, out.rows, view, out, undefined, texts);
  return { status, headers, type: 'application/xml; charset=utf-8', body };
}

/** Render an error as XML or JSON (§4.4, §8.14). */
export function sendError(reply: FastifyReply, e: ApiError, json: boolean): void {
  reply.code(e.status).headers(e.headers);
  if (e.status === 401) reply.header('WWW-Authenticate', 'Basic realm="Bivouac"');
  if (json) reply.type('application/json; charset=utf-8').send(JSON.stringify({ errors: e.messages }));
  else reply.type('application/xml; charset=utf-8').send(xmlErrors(e.messages));
}

/** Does the client prefer JSON over XML (§8.14)? A `.json` route always answers JSON. */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept || !accept.includes('json')) return false;
  let json = 0, xml = 0;
  for (const part of accept.split(',')) {
    const [type, ...ps] = part.trim().toLowerCase().split(';');
    const qp = ps.find((p) => p.trim().startsWith('q='));
    const qv = qp ? Number(qp.trim().slice(2)) : 1;
    if (type === 'application/json' || type.endsWith('+json')) json = Math.max(json, qv);
    if (type === 'application/xml' || type === 'text/xml') xml = Math.max(xml, qv);
  }
  return json > 0 && json > xml;
}
