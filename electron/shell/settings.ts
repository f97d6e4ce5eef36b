// The shell's own settings (<userData>/shell-settings.json) and "start at login".
// Start at login is opt-in and lives where the OS keeps it: the login items of macOS and Windows
// (app.setLoginItemSettings), an XDG autostart entry on Linux (~/.config/autostart/bivouac.desktop,
// which Electron does not manage).

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ShellSettings, ShellSettingsPatch } from '../../shared/ipc.ts';
import type { ElectronPort } from './port.ts';

export const DEFAULT_API_PORT = 4817;

/** What is stored in the file (start at login is not: the OS is the truth for it). */
export interface StoredSettings { readonly keepInTray: boolean; readonly apiPort: number }
export const DEFAULT_SETTINGS: StoredSettings = { keepInTray: true, apiPort: DEFAULT_API_PORT };

/**
 * The defaults on a platform. Linux: closing the window quits unless the user turned the tray on (D258). A Linux
 * desktop may have no tray host (GNOME without an AppIndicator extension, a bare X server), and Electron creates
 * its Tray there without an error: closing to the tray would hide the window behind an icon nobody can see.
 */
export function defaultSettings(platform: string): StoredSettings {
  return platform === 'linux' ? { ...DEFAULT_SETTINGS, keepInTray: false } : DEFAULT_SETTINGS;
}

export function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Write a file atomically (a crash mid-write leaves the old one), readable by the user only. */
export function writeFileAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}

export function parseSettings(raw: unknown, defaults: StoredSettings = DEFAULT_SETTINGS): StoredSettings {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const port = r.apiPort;
  return {
    keepInTray: typeof r.keepInTray === 'boolean' ? r.keepInTray : defaults.keepInTray,
    apiPort: typeof port === 'number' && Number.isInteger(port) && port >= 1024 && port <= 65535 ? port : defaults.apiPort,
  };
}

export class SettingsFile {
  private readonly file: string;
  private readonly defaults: StoredSettings;
  private current: StoredSettings;
  constructor(file: string, defaults: StoredSettings = DEFAULT_SETTINGS) {
    this.file = file;
    this.defaults = defaults;
    this.current = parseSettings(readJson(file), defaults);
  }
  get(): StoredSettings { return this.current; }
  set(patch: Partial<StoredSettings>): StoredSettings {
    this.current = parseSettings({ ...this.current, ...patch }, this.defaults);
    writeFileAtomic(this.file, `${JSON.stringify(this.current, null, 2)}\n`);
    return this.current;
  }
}

/** Start at login, per platform. */
export interface LoginItems {
  isEnabled(): boolean;
  setEnabled(on: boolean): void;
}

export function desktopEntry(exec: string): string {
  // Desktop Entry spec: quote the path if it has spaces or specials; `--hidden` starts in the tray.
  const quoted = /[\s"'\\$`]/.test(exec) ? `"${exec.replace(/(["`$\\])/g, '\\$1')}"` : exec;
  return ['[Desktop Entry]', 'Type=Application', 'Name=Bivouac', 'Comment=Offline-first project collaboration',
    `Exec=${quoted} --hidden`, 'Terminal=false', 'X-GNOME-Autostart-enabled=true', ''].join('\n');
}

export function loginItems(port: Pick<ElectronPort, 'platform' | 'app'>, env: NodeJS.ProcessEnv): LoginItems {
  if (port.platform === 'linux') {
    const config = env.XDG_CONFIG_HOME || join(port.app.getPath('home'), '.config');
    const file = join(config, 'autostart', 'bivouac.desktop');
    return {
      isEnabled: () => existsSync(file),
      setEnabled(on) {
        // An AppImage runs from a temporary mount: the autostart entry must start the AppImage file itself.
        if (on) writeFileAtomic(file, desktopEntry(env.APPIMAGE || port.app.getExecPath()));
        else rmSync(file, { force: true });
      },
    };
  }
  return {
    isEnabled: () => port.app.getLoginItem().openAtLogin,
    setEnabled: (on) => port.app.setLoginItem({ openAtLogin: on }),
  };
}

export function currentSettings(file: SettingsFile, login: LoginItems): ShellSettings {
  return { ...file.get(), startAtLogin: login.isEnabled() };
}

export type { ShellSettingsPatch };
