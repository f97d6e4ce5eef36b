// A small round-robin HTTP proxy (node:http) in front of several team-server processes: each
// request goes to the next backend in turn, so consecutive requests of one client land on
// different processes. For tests and benchmarks only (a real deployment uses its own balancer).

import { createServer, request, Agent, type Server } from 'node:http';

export interface Proxy { readonly url: string; readonly port: number; close(): Promise<void> }

export function startProxy(backends: readonly string[], port = 0, host = '127.0.0.1'): Promise<Proxy> {
  const targets = backends.map((b) => new URL(b));
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server: Server = createServer((req, res) => {
    let answered = false;
    const chunks: Buffer[] = [];
    // Like nginx's proxy_next_upstream for idempotent methods: a GET/HEAD sent on a reused keep-alive
    // connection that the backend closed at that moment (no answer at all) is sent once more.
    const retriable = req.method === 'GET' || req.method === 'HEAD';
    const forward = (attempt: number): void => {
      const t = targets[next++ % targets.length];
      const up = request({
        host: t.hostname, port: t.port, method: req.method, path: req.url, agent,
        // As a reverse proxy does: the client's Host, address and scheme go in X-Forwarded-* (the
        // servers run with --trust-proxy); Host becomes the backend's own.
        headers: {
          ...req.headers, host: `${t.hostname}:${t.port}`, 'x-forwarded-host': req.headers.host ?? '',
          'x-forwarded-for': req.socket.remoteAddress ?? '', 'x-forwarded-proto': 'http',
        },
      }, (r) => {
        answered = true;
        res.writeHead(r.statusCode ?? 502, r.rawHeaders);
        r.pipe(res);
      });
      // A backend may answer before it has read the whole body (413) and close: the write fails
      // (EPIPE) but its answer is on the way; only a request that gets no answer at all is a 502.
      up.on('error', (e) => {
        if (!answered && retriable && up.reusedSocket && attempt === 0) { forward(1); return; }
        setTimeout(() => {
          if (answered) return;
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`proxy: ${e.message}`);
        }, 500);
      });
      up.end(Buffer.concat(chunks));
    };
    // The body is read whole first and written in one go (bodies are at most a few MiB here): the
    // kernel takes it at once, so a backend that answers early (413) is rarely cut off mid-write.
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(0));
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const a = server.address();
      const p = typeof a === 'object' && a ? a.port : port;
      resolve({
        url: `http://${host}:${p}`, port: p,
        close: () => new Promise<void>((done) => { server.closeAllConnections(); server.close(() => done()); agent.destroy(); }),
      });
    });
  });
}
