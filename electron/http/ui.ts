// Serves the built renderer (Vite output) at `/`, so the app also runs in a browser.
// Only files inside the build directory are served; no authentication (the page signs in
// through the API itself).

import type { FastifyInstance } from 'fastify';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2',
};

export async function uiPlugin(app: FastifyInstance, opts: { dir: string }): Promise<void> {
  const root = normalize(opts.dir);
  const serve = async (rel: string, reply: import('fastify').FastifyReply, immutable: boolean) => {
    const file = normalize(join(root, rel));
    if (!file.startsWith(root + sep)) return reply.code(404).type('text/plain').send('Not found');
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
    } catch {
      return reply.code(404).type('text/plain').send('Not found');
    }
    reply.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    // frame-ancestors and X-Frame-Options (older browsers): no other page may frame the app (clickjacking).
    reply.header('Content-Security-Policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'");
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.type(TYPES[extname(file)] ?? 'application/octet-stream').send(await readFile(file));
  };
  const cfg = { public: true, ui: true };
  app.get('/', { config: cfg }, (_req, reply) => serve('index.html', reply, false));
  app.get('/index.html', { config: cfg }, (_req, reply) => serve('index.html', reply, false));
  app.get('/assets/*', { config: cfg }, (req, reply) => serve(join('assets', (req.params as { '*': string })['*']), reply, true));
  app.get('/favicon.svg', { config: cfg }, (_req, reply) => serve('favicon.svg', reply, true));
}
