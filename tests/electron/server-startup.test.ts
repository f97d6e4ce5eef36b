// What a start does not load (D208): an ESM import of `node:http` built its facade and loaded undici
// (45–60 ms), and Fastify's default schema compilers loaded ajv (~60 ms), for nothing the service uses.
// Checked in a fresh process, as `bivouac serve` starts: the CLI module, then an app over a store, ready.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../electron/http/app.ts';
import { SqliteStore } from '../../electron/store/sqlite.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('starting the service (D208)', () => {
  it('loads neither undici nor ajv', () => {
    const script = `
      await import('./electron/cli.ts');
      const { buildApp } = await import('./electron/http/app.ts');
      const { SqliteStore } = await import('./electron/store/sqlite.ts');
      const store = new SqliteStore(':memory:');
      const app = await buildApp({ store });
      await app.ready();
      const { createRequire } = await import('node:module');
      const cache = Object.keys(createRequire(import.meta.url).cache);
      process.stdout.write(JSON.stringify({
        undici: process.moduleLoadList.some((m) => m.includes('undici')),
        ajv: cache.some((k) => /[\\\\/]ajv[\\\\/]/.test(k) || k.includes('ajv-compiler')),
        routes: app.printRoutes().length > 0,
      }));
      await app.close();
      await store.close();`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ undici: false, ajv: false, routes: true });
  });

  it('a route schema added to the app fails loudly instead of being ignored', async () => {
    const store = new SqliteStore(':memory:');
    const app = await buildApp({ store });
    try {
      app.post('/with-schema', { schema: { body: { type: 'object' } } }, async () => 'x');
      await expect(app.ready()).rejects.toThrow(/route schemas are not used in this app/);
    } finally {
      await app.close().catch(() => undefined);
      await store.close();
    }
  });

  it('the entry point (electron/bin.mjs, plain JavaScript) runs the CLI', () => {
    const out = execFileSync(process.execPath, [join(ROOT, 'electron', 'bin.mjs'), '--help'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toMatch(/^usage: bivouac <command>/m);
    expect(out).toContain('serve');
  });
});
