// Extra service processes for the sync e2e specs (a team server, an empty local service): started
// from the real CLI on a free port, stopped with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Page } from '@playwright/test';

export const root = new URL('..', import.meta.url).pathname;
/** Node 24 from the devDependency when it is there (the CLI is TypeScript). */
export const node = existsSync(join(root, 'node_modules/.bin/node')) ? join(root, 'node_modules/.bin/node') : process.execPath;

export const freePort = () => new Promise<number>((res, rej) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const a = s.address(); s.close(() => res(typeof a === 'object' && a ? a.port : 0)); });
  s.on('error', rej);
});

/** `bivouac serve --port PORT …args`, resolved once its /health answers. */
export async function start(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(node, [join(root, 'electron/cli.ts'), 'serve', '--port', String(port), ...args], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child; } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service on ${port} did not start`);
}

export const stop = (c: ChildProcess | null) => new Promise<void>((res) => {
  if (!c || c.exitCode !== null) { res(); return; }
  c.once('exit', () => res());
  c.kill('SIGTERM');
});

/** A JSON API call as `who` (Basic auth); throws on a non-2xx answer with its body. */
export async function call<T>(base: string, who: { user: string; password: string }, method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(base + path, { method, headers: { Authorization: `Basic ${Buffer.from(`${who.user}:${who.password}`).toString('base64')}`, Accept: 'application/json', 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  const t = await r.text();
  return (t ? JSON.parse(t) : null) as T;
}

/** A screenshot into docs/screens/NAME.png. */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(join(root, 'docs/screens'), { recursive: true });
  await page.screenshot({ path: join(root, `docs/screens/${name}.png`) });
}
