// The Electron main process of Bivouac as shipped: the composition root of the desktop app
// (electron/desktop.ts: the port over `electron` and the shell) with the local service in this process:
// Electron 45's Node 24 has node:sqlite. The real-Electron tests start the same shell from another entry,
// e2e-electron/entry.ts, whose service runs out of process (D259): nothing here depends on the environment.
//
//   development:  npm run desktop   (compile, build the UI, `electron .`; needs the Electron binary)
//   installers:   npm run dist      (electron-builder; downloads Electron)
//   here:         npm run package:dir, npm run desktop:real (the test runtime, Electron 33: docs/desktop-shell.md)

import { startDesktop } from './desktop.ts';
import { serviceStarter } from './shell/service.ts';

startDesktop(({ uiDir }) => serviceStarter({ uiDir, demo: true }));
