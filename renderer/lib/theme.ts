// The colour theme (issue #28, D267): light, dark, or the system's (prefers-color-scheme). The choice is
// kept in this browser's localStorage; the page's <html data-theme> says which one is shown.

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'bivouac.theme';

const store = (): Storage | null => { try { return window.localStorage; } catch { return null; } };
const systemDark = (): boolean => typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: dark)').matches;

/** The saved choice (system when none or unknown). */
export function themeChoice(): ThemeChoice {
  const v = store()?.getItem(KEY);
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** The theme shown for a choice. */
export const resolveTheme = (c: ThemeChoice): 'light' | 'dark' => (c === 'system' ? (systemDark() ? 'dark' : 'light') : c);

/** Show the saved choice's theme. */
export function applyTheme(): void {
  if (typeof document === 'undefined') return;
  document.documentElement.dataset.theme = resolveTheme(themeChoice());
}

/** Save a choice and show it. */
export function setThemeChoice(c: ThemeChoice): void {
  if (c === 'system') store()?.removeItem(KEY); else store()?.setItem(KEY, c);
  applyTheme();
}

/** Follow the system's changes while the choice is "system". */
export function followSystemTheme(): void {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return;
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', applyTheme);
  // another tab changed the choice
  window.addEventListener('storage', (e) => { if (e.key === KEY || e.key === null) applyTheme(); });
}
