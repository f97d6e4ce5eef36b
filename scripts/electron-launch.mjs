// How the desktop app is started in the test runtime (scripts/electron-runtime.mjs): the one description that
// the real-Electron suite (e2e-electron/), `npm run desktop:real` and `npm run package:dir`'s launch check use,
// in the shape of Playwright's _electron.launch options: { executablePath, args, env, cwd }.
//
//   dev layout:  test-dist/electron (the inspector fuse on) <checkout>/dist/e2e-electron/entry.js
//                (the launcher in default_app.asar makes the checkout the app's folder: app name `bivouac`)
//   packaged:    release/test/linux-unpacked/bivouac, the build that differs from the shipped one in the
//                inspector fuse and in its entry (scripts/package-dir.mjs, D260); BIVOUAC_TEST_ROOT tells the
//                entry where Node 24 and the service's sources are.
//
// The profile: XDG_CONFIG_HOME=<profile> (userData is <profile>/bivouac or <profile>/Bivouac, the log under it),
// BIVOUAC_PORT=0 (a free port: several checkouts test on one machine). --no-sandbox: Chromium's setuid sandbox
// helper is not installed setuid here (and root needs it anyway); the page's own sandbox (webPreferences.sandbox)
// is untouched.

import { join } from 'node:path';
import { runtimePaths } from './electron-runtime.mjs';

export const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
export const packagedDir = join(root, 'release', 'test', 'linux-unpacked');
export const devEntry = join(root, 'dist', 'e2e-electron', 'entry.js');

const PASS_ENV = ['PATH', 'HOME', 'DISPLAY', 'XAUTHORITY', 'LANG', 'TMPDIR'];

/** The launch options for a profile folder; `extraArgs` go to the app (e.g. a bivouac:// link). */
export function launchSpec({ packaged = false, profile, extraArgs = [], env = {} }) {
  const base = Object.fromEntries(PASS_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  return {
    executablePath: packaged ? join(packagedDir, 'bivouac') : join(runtimePaths().testDist, 'electron'),
    args: [...(packaged ? [] : [devEntry]), '--no-sandbox', '--disable-background-networking', '--disable-component-update', ...extraArgs],
    env: {
      ...base,
      XDG_CONFIG_HOME: profile,
      BIVOUAC_PORT: '0',
      BIVOUAC_TEST_ROOT: root,
      BIVOUAC_TEST_NODE: join(root, 'node_modules', '.bin', 'node'),
      // The packaged build checks for updates at its feed (updates.bivouac.example): a closed loopback port here.
      BIVOUAC_UPDATE_URL: 'http://127.0.0.1:9/',
      ...env,
    },
    cwd: root,
  };
}
