// The one API client instance of the renderer (shared/client.ts over window.fetch).

import { ApiError, BivouacClient } from '../shared/client.ts';
import { inWords } from './lib/errors.ts';

/** base64 of the UTF-8 bytes of a string (btoa alone only takes Latin-1). */
export function utf8Base64(s: string): string {
  let bin = '';
  for (const b of new TextEncoder().encode(s)) bin += String.fromCharCode(b);
  return btoa(bin);
}

function baseUrl(): string {
  if (typeof window === 'undefined') return '';
  if (window.bivouac?.apiBase) return window.bivouac.apiBase;
  return window.location.protocol === 'file:' ? 'http://127.0.0.1:4817' : '';
}

export const api = new BivouacClient({
  baseUrl: baseUrl(),
  // credentials 'omit': the Authorization header is explicit, and a 401 must not open the browser's
  // own Basic-auth dialog (the Fetch standard only prompts when credentials are included).
  fetch: (url, init) => fetch(url, { ...init, credentials: 'omit' }),
  base64: utf8Base64,
});

/** The messages to show for a failure: the server's `errors`, or the error's text, in words (lib/errors.ts). */
export function errorMessages(e: unknown): string[] {
  if (e instanceof ApiError) {
    if (e.status === 409 && e.messages.length === 0) return ['The server refused: conflict'];
    return e.messages.map(inWords);
  }
  return [inWords(e instanceof Error ? e.message : String(e))];
}

export { ApiError };
