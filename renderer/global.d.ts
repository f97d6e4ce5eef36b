// Globals the renderer may find: the Electron preload exposes `window.bivouac`, typed by the one IPC
// contract (shared/ipc.ts) that the preload and the main process use too: reading a field the bridge
// does not have, or calling a channel with the wrong arguments, is a type error.
import type { BivouacBridge } from '../shared/ipc.ts';

declare global {
  interface Window {
    /** Set by the Electron preload (desktop mode): the session and the shell's channels. */
    bivouac?: BivouacBridge;
  }
}
