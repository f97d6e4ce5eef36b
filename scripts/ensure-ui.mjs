// prestart: build the renderer when its build is missing or older than its sources.
import { existsSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'dist', 'renderer', 'index.html');
const src = join(root, 'renderer');
const newest = (dir) => {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
};
if (!existsSync(join(src, 'index.html'))) process.exit(0);
const stale = !existsSync(out) || statSync(out).mtimeMs < Math.max(newest(src), newest(join(root, 'shared')));
if (stale) {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', join(src, 'vite.config.ts'), '--logLevel', 'warn'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  // The API must start even when the UI cannot be built: say so and go on.
  if (r.status !== 0) process.stderr.write('bivouac: the UI build failed (see above); the API starts without the UI\n');
}
