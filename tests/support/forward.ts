// Forwarding one request to a target server as it came (method, path, headers with the target's Host, body),
// collecting the whole answer: the shared core of the fault proxy (sync-helpers.ts) and the hostile remote.

import { request as httpRequest, type IncomingMessage } from 'node:http';

export interface Forwarded { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** A function that sends `req` (with its already-read `body`) to `target` and resolves with the full answer. */
export function forwardTo(target: string | URL): (req: IncomingMessage, body: Buffer) => Promise<Forwarded> {
  const t = new URL(target);
  return (req, body) => new Promise((resolve, reject) => {
    const out = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}
