// The window's size, position and maximised state, remembered per display (a laptop alone and the
// same laptop at a desk with a big screen get their own), and restored on screen even when the
// display it was on went away. Pure functions over plain data; shell.ts reads and writes the file.

import type { DisplayInfo, Rect } from './port.ts';

export interface SavedBounds extends Rect { readonly maximized: boolean }

export interface WindowState {
  /** Per display (displayKey), the last bounds the window had there. */
  readonly displays: Readonly<Record<string, SavedBounds>>;
  /** The display the window was on last. */
  readonly last: string | null;
}

export const EMPTY_WINDOW_STATE: WindowState = { displays: {}, last: null };
export const DEFAULT_SIZE = { width: 1280, height: 820 } as const;
export const MIN_SIZE = { width: 720, height: 480 } as const;
/** How much of the window must be on a display to count as reachable (its title bar, mostly). */
const MIN_VISIBLE = { width: 120, height: 60 } as const;

/** A display's identity: its id and its work area's size (an id reused for another monitor is another key). */
export const displayKey = (d: DisplayInfo): string => `${d.id}:${d.workArea.width}x${d.workArea.height}`;

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)),
  };
}

/** True when enough of the rectangle lies on one of the displays to grab it with the mouse. */
export function isReachable(r: Rect, displays: readonly DisplayInfo[]): boolean {
  return displays.some((d) => {
    const o = overlap(r, d.workArea);
    return o.width >= Math.min(MIN_VISIBLE.width, r.width) && o.height >= Math.min(MIN_VISIBLE.height, r.height);
  });
}

/** The rectangle made to fit a display's work area, centred there. */
export function centreOn(d: DisplayInfo, size: { width: number; height: number }): Rect {
  const w = Math.max(Math.min(size.width, d.workArea.width), Math.min(MIN_SIZE.width, d.workArea.width));
  const h = Math.max(Math.min(size.height, d.workArea.height), Math.min(MIN_SIZE.height, d.workArea.height));
  return {
    x: Math.round(d.workArea.x + (d.workArea.width - w) / 2),
    y: Math.round(d.workArea.y + (d.workArea.height - h) / 2),
    width: Math.round(w), height: Math.round(h),
  };
}

/**
 * Where the window opens: the bounds last used on the display it was on, if that display is still
 * there and the bounds are reachable; else those of another connected display it was on; else the
 * remembered size (or the default) centred on the primary display.
 */
export function restoreBounds(state: WindowState, displays: readonly DisplayInfo[], primary: DisplayInfo): { bounds: Rect; maximized: boolean } {
  const present = new Map(displays.map((d) => [displayKey(d), d]));
  const candidates = [state.last, ...Object.keys(state.displays)].filter((k): k is string => k !== null && present.has(k));
  for (const key of candidates) {
    const saved = state.displays[key];
    if (!saved) continue;
    const { maximized, ...r } = saved;
    if (r.width >= 1 && r.height >= 1 && isReachable(r, displays)) return { bounds: r, maximized };
  }
  const remembered = state.last ? state.displays[state.last] : undefined;
  const size = remembered && remembered.width >= 1 && remembered.height >= 1 ? remembered : DEFAULT_SIZE;
  return { bounds: centreOn(primary, size), maximized: remembered?.maximized ?? false };
}

/** The state after the window was seen at `bounds` (normal bounds) on `display`. */
export function rememberBounds(state: WindowState, display: DisplayInfo, bounds: Rect, maximized: boolean): WindowState {
  const key = displayKey(display);
  const { x, y, width, height } = bounds;
  return { displays: { ...state.displays, [key]: { x, y, width, height, maximized } }, last: key };
}

/** A window state read from a file: anything malformed is left out (a broken file is no reason to fail). */
export function parseWindowState(raw: unknown): WindowState {
  if (typeof raw !== 'object' || raw === null) return EMPTY_WINDOW_STATE;
  const r = raw as { displays?: unknown; last?: unknown };
  const displays: Record<string, SavedBounds> = {};
  if (typeof r.displays === 'object' && r.displays !== null) {
    for (const [k, v] of Object.entries(r.displays as Record<string, unknown>)) {
      const b = v as Record<string, unknown> | null;
      if (b && ['x', 'y', 'width', 'height'].every((f) => Number.isFinite(b[f])) && typeof b.maximized === 'boolean') {
        displays[k] = { x: b.x as number, y: b.y as number, width: b.width as number, height: b.height as number, maximized: b.maximized };
      }
    }
  }
  return { displays, last: typeof r.last === 'string' && displays[r.last] ? r.last : null };
}
