// Electron's security checklist, as decisions on plain values (tested without Electron): what a
// page may navigate to, which links leave for the system browser, which permissions are granted.

import type { ContentsPort, ElectronPort } from './port.ts';

/** The origin of a URL, or null when it does not parse. */
export function originOf(url: string): string | null {
  try {
    const o = new URL(url).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

/** Navigation stays inside the app's own origin (the local service); anything else is blocked. */
export function mayNavigate(url: string, appOrigin: string): boolean {
  return appOrigin !== '' && originOf(url) === appOrigin;
}

const EXTERNAL_SCHEMES = new Set(['https:', 'http:', 'mailto:']);

/**
 * The URL to hand to the system browser, or null: only http(s) and mailto links (no file:, javascript:,
 * custom schemes that start programs), without credentials in them, and never the app's own origin
 * (that would show the local API, token-less, in a browser).
 */
export function externalUrl(url: string, appOrigin: string): string | null {
  if (typeof url !== 'string' || url.length > 2048) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!EXTERNAL_SCHEMES.has(u.protocol)) return null;
  if (u.username || u.password) return null;
  if (u.protocol !== 'mailto:' && (!u.hostname || u.origin === appOrigin)) return null;
  return u.href;
}

/** The only permission the page gets: writing to the clipboard ("Copy link"), and only for our own origin. */
const GRANTED = new Set(['clipboard-sanitized-write']);

export function mayGrantPermission(permission: string, requestingUrl: string, appOrigin: string): boolean {
  return GRANTED.has(permission) && originOf(requestingUrl) === appOrigin;
}

/**
 * Lock down any web contents that gets created (our window, and anything that would try to open):
 * no new windows (links go to the system browser after the scheme check), no navigation away from
 * the app, no <webview>.
 */
export function lockDown(contents: ContentsPort, appOrigin: () => string, port: Pick<ElectronPort, 'shell'>, log: (msg: string) => void,
  openInside: (url: string) => void = () => undefined): void {
  const openOutside = (url: string) => {
    const ok = externalUrl(url, appOrigin());
    if (ok) void port.shell.openExternal(ok);
    else log(`refused to open ${url.slice(0, 200)}`);
  };
  // No new windows: a link to the app itself (a message linking to another) opens in the app's window.
  contents.setWindowOpenHandler((url) => (mayNavigate(url, appOrigin()) ? openInside(url) : openOutside(url)));
  // A link the user followed opens in the browser; a redirect (the server's doing) is only stopped.
  contents.onWillNavigate((e, url) => {
    if (mayNavigate(url, appOrigin())) return;
    e.preventDefault();
    openOutside(url);
  });
  contents.onWillRedirect((e, url) => {
    if (mayNavigate(url, appOrigin())) return;
    e.preventDefault();
    log(`stopped a redirect to ${url.slice(0, 200)}`);
  });
  contents.onWillAttachWebview((e) => e.preventDefault());
}

/** Permission requests and checks are denied unless mayGrantPermission says otherwise. */
export function guardPermissions(port: Pick<ElectronPort, 'session'>, appOrigin: () => string): void {
  port.session.setPermissionRequestHandler((permission, url) => mayGrantPermission(permission, url, appOrigin()));
  port.session.setPermissionCheckHandler((permission, origin) => mayGrantPermission(permission, origin, appOrigin()));
}
