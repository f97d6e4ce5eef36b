// The service for the e2e run: build the UI, then serve it and the API on a fresh temporary data
// directory seeded with the conformance fixture. The directory is removed when the server stops.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const i = process.argv.indexOf('--port');
const port = i > 0 ? process.argv[i + 1] : '4873';

// scripts/test.mjs builds the UI in an earlier step and says so with BIVOUAC_UI_BUILT=1.
const built = process.env.BIVOUAC_UI_BUILT === '1' && existsSync(join(root, 'dist/renderer/index.html'));
const build = built ? { status: 0 } : spawnSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(root, 'renderer/vite.config.ts'), '--logLevel', 'warn'],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
if (build.status !== 0) { process.stderr.write('e2e: the UI build failed\n'); process.exit(1); }

const dir = mkdtempSync(join(tmpdir(), 'bivouac-e2e-'));
const child = spawn(process.execPath, [join(root, 'electron/cli.ts'), 'serve', '--port', port, '--data-dir', dir, '--seed', join(root, 'tests/fixtures/account.json'), '--no-demo'],
  { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => { child.kill('SIGTERM'); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
child.on('exit', (code) => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
