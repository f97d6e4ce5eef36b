// Header names on the wire as the original service sent them (`Location`, `Status`, `Content-Type`,
// `WWW-Authenticate`, …). Fastify keeps reply headers under lower-case names; HTTP says names are
// case-insensitive, but a widely used 2009 PHP client of the Basecamp API matches `Location:` and
// `Status:` case-sensitively. The server is created with this ServerResponse class, which gives every
// name its conventional capitalisation when the head is written. One class per process is fine: it
// holds no state.

import type { IncomingMessage, OutgoingHttpHeaders, OutgoingHttpHeader } from 'node:http';
import { http } from './node-http.ts';

/**
 * The names this server sends, looked up (a constant table: no per-response regular expression), and the
 * names whose conventional form is not "capitalise each word".
 */
const KNOWN: Readonly<Record<string, string | undefined>> = Object.freeze(Object.assign(Object.create(null) as Record<string, string>, Object.fromEntries([
  'Content-Type', 'Content-Length', 'Status', 'Location', 'Allow', 'X-Count', 'X-Continued-At', 'Cache-Control',
  'Content-Security-Policy', 'X-Frame-Options', 'X-Content-Type-Options', 'Connection', 'Last-Modified',
  'X-Create-Action', 'X-Update-Action', 'X-Records', 'X-Pages', 'X-Page', 'Retry-After', 'Vary', 'Idempotency-Key', 'Idempotent-Replayed',
  'X-Bivouac-Cursor', 'X-Accel-Buffering', 'WWW-Authenticate', 'ETag', 'Content-MD5', 'X-XSS-Protection', 'TE', 'DNT',
].map((n) => [n.toLowerCase(), n]))));
const WORD = /(^|-)([a-z])/g;

/** `content-type` → `Content-Type`; a name already starting with a capital is kept as it is. */
export function canonicalHeader(name: string): string {
  const c = name.charCodeAt(0);
  if (c >= 65 && c <= 90) return name;
  return KNOWN[name] ?? name.replace(WORD, (_m, dash: string, ch: string) => dash + ch.toUpperCase());
}

type Head = OutgoingHttpHeaders | OutgoingHttpHeader[];

export class ClassicResponse<Req extends IncomingMessage = IncomingMessage> extends http.ServerResponse<Req> {
  override writeHead(statusCode: number, a?: string | Head, b?: Head): this {
    const headers = typeof a === 'string' ? b : a;
    if (headers && !Array.isArray(headers)) {
      const named: OutgoingHttpHeaders = {};
      for (const k in headers) named[canonicalHeader(k)] = headers[k];
      return typeof a === 'string' ? super.writeHead(statusCode, a, named) : super.writeHead(statusCode, named);
    }
    return typeof a === 'string' ? super.writeHead(statusCode, a, b) : super.writeHead(statusCode, a);
  }
}
