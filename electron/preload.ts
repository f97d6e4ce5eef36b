// The preload of the Bivouac window: runs sandboxed, before the page, and exposes one frozen,
// read-only object to the page as `window.bivouac`. The page uses it to call the local API
// with the owner's token instead of asking for a password.
//
// The session comes from the main process over a synchronous IPC call (never on the command
// line, where other local users could read the token); main answers only frames of the
// service's own origin. Packaged builds compile this file to CommonJS (dist/electron/preload.cjs,
// see scripts/package-dir.mjs): sandboxed preloads cannot be ES modules.

import { contextBridge, ipcRenderer } from 'electron';

/** What the page sees as `window.bivouac` (absent when the page runs in a plain browser). */
export interface BivouacBridge {
  /** The API token of the local owner (HTTP Basic: the token as user name, any password). */
  readonly token: string;
  /** The origin of the local service, e.g. `http://127.0.0.1:4817`. */
  readonly apiBase: string;
  /** The app's version. */
  readonly version: string;
}

const SESSION_CHANNEL = 'bivouac:session'; // answered by main.ts

const session: unknown = ipcRenderer.sendSync(SESSION_CHANNEL);
if (session && typeof session === 'object') {
  const s = session as Record<string, unknown>;
  const bridge: BivouacBridge = { token: String(s.token ?? ''), apiBase: String(s.apiBase ?? ''), version: String(s.version ?? '') };
  contextBridge.exposeInMainWorld('bivouac', Object.freeze(bridge));
}
