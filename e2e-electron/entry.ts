// The real-Electron tests' entry (D259): the same desktop app as electron/main.ts (electron/desktop.ts: the port
// over `electron`, the shell, the window, the preload), composed with another way to run the local service. In an
// Electron whose Node has node:sqlite (Electron 45, Node 24) it runs in this process as shipped; in the test runtime
// (Electron 33.2.1, Node 20.18, no node:sqlite) it runs on the project's Node 24 in a process of its own.
//
// Compiled with the shell (tsconfig.electron.json) to dist/e2e-electron/entry.js; never part of the shipped app
// (build/electron-builder.yml packs dist/electron, dist/shared, dist/renderer). The packaged test build
// (scripts/package-dir.mjs) names it as its main and sets BIVOUAC_TEST_ROOT (this checkout, where Node 24 and the
// service's sources are: Node 24 cannot read app.asar).

import { app, session } from 'electron';
import { join } from 'node:path';
import { startDesktop } from '../electron/desktop.ts';
import { outOfProcessStarter } from '../electron/shell/service-process.ts';
import type { StartService } from '../electron/shell/port.ts';

const root = process.env.BIVOUAC_TEST_ROOT || join(import.meta.dirname, '..', '..');
const hasSqlite = process.getBuiltinModule?.('node:sqlite') !== undefined;

// The tests talk to loopback only: the spell checker's dictionaries (Electron fetches them from Google's CDN on
// Linux) come from a closed local port instead, i.e. not at all. Registered before the shell's own ready handler.
void app.whenReady().then(() => session.defaultSession.setSpellCheckerDictionaryDownloadURL('http://127.0.0.1:9/'));

startDesktop(({ uiDir }): StartService => (hasSqlite
  ? async (o) => (await import('../electron/shell/service.ts')).serviceStarter({ uiDir, demo: true })(o)
  : outOfProcessStarter({ node: process.env.BIVOUAC_TEST_NODE || join(root, 'node_modules', '.bin', 'node'),
    host: join(root, 'electron', 'shell', 'service-host.ts'),
    // Node 24 cannot read app.asar: a packaged build's UI is served from the checkout's build of it (the same files).
    uiDir: uiDir && /\.asar([\\/]|$)/.test(uiDir) ? join(root, 'dist', 'renderer') : uiDir, demo: true })));
