// Globals the renderer may find: the Electron preload exposes `window.bivouac`.
export {};

declare global {
  interface Window {
    /** Set by the Electron preload: the local API token (no sign-in needed) and the service URL. */
    bivouac?: { readonly token: string; readonly baseUrl?: string };
  }
}
