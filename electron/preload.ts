// The preload of the Bivouac window: runs sandboxed, before the page, and exposes exactly the IPC
// contract of shared/ipc.ts to the page as `window.bivouac` (one frozen contextBridge object: the
// session, `invoke` for the contract's channels, `on` for its events; nothing else of Electron).
//
// The session (with the local API token) comes from main over one synchronous message (never on the
// command line, where other local users could read it); main answers only the app's own page.
// Sandboxed preloads cannot load modules: scripts/package-dir.mjs bundles this file with
// shared/ipc.ts into one CommonJS file (dist/electron/preload.cjs), `electron` left external.

import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { SESSION_CHANNEL, isEventChannel, isInvokeChannel, isShellSession, type BivouacBridge, type EventChannel, type EventContract,
  type InvokeChannel } from '../shared/ipc.ts';

const session: unknown = ipcRenderer.sendSync(SESSION_CHANNEL);

if (isShellSession(session)) {
  const invoke = (channel: InvokeChannel, ...args: unknown[]): Promise<unknown> => (isInvokeChannel(channel)
    ? ipcRenderer.invoke(channel, ...args)
    : Promise.reject(new Error(`no such channel: ${String(channel).slice(0, 40)}`)));
  const on = <E extends EventChannel>(channel: E, listener: (payload: EventContract[E]) => void): (() => void) => {
    if (!isEventChannel(channel)) throw new Error(`no such event: ${String(channel).slice(0, 40)}`);
    // The page gets the payload only, never Electron's event object (it holds `sender`).
    const wrapped = (_e: IpcRendererEvent, payload: EventContract[E]) => listener(payload);
    ipcRenderer.on(channel, wrapped);
    return () => { ipcRenderer.removeListener(channel, wrapped); };
  };
  const bridge: BivouacBridge = {
    token: session.token,
    apiBase: session.apiBase,
    version: session.version,
    platform: session.platform,
    invoke: invoke as BivouacBridge['invoke'],
    on,
  };
  contextBridge.exposeInMainWorld('bivouac', Object.freeze(bridge));
}
