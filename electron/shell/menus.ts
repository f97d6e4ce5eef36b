// The tray menu (per sync state) and the application menu (per platform), as plain data built from
// the state and the actions: tested without Electron, turned into Electron menus by main.ts.
//
// The application menu uses no accelerator the page uses itself (single keys such as ?, /, 1–4, n,
// x, and Alt+arrows): a menu accelerator would take those keys away from the page, even in text
// fields. The views get Ctrl/Cmd+1–4 instead, which the page ignores.

import type { ShellCommand, SyncStatus } from '../../shared/ipc.ts';
import { progressRatio } from '../../shared/sync-status.ts';
import type { MenuItem } from './port.ts';

export interface TrayActions {
  open(): void;
  syncNow(): void;
  copyApiCredentials(): void;
  quit(): void;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One line saying where sync stands: "Synced", "Syncing… 40%", "Offline", "2 conflicts"… */
export function syncLabel(s: SyncStatus): string {
  const waiting = s.pending > 0 ? ` (${plural(s.pending, 'change', 'changes')} waiting)` : '';
  switch (s.state) {
    case 'local': return 'Local only: no team server';
    case 'syncing': {
      const r = progressRatio(s.progress);
      return `Syncing…${r !== null ? ` ${Math.round(r * 100)}%` : ''}`;
    }
    case 'connecting': return 'Connecting to the team server…';
    case 'offline': return `Offline${waiting}`;
    case 'error': return `Sync failed${s.message ? `: ${s.message.slice(0, 60)}` : ''}${waiting}`;
    case 'idle': return s.pending > 0 ? `${plural(s.pending, 'change', 'changes')} to sync` : 'Synced';
  }
}

export function trayTooltip(s: SyncStatus): string {
  return `Bivouac — ${syncLabel(s)}${s.conflicts > 0 ? `, ${plural(s.conflicts, 'conflict', 'conflicts')}` : ''}`;
}

export function trayMenu(s: SyncStatus, a: TrayActions): MenuItem[] {
  const items: MenuItem[] = [
    { label: 'Open Bivouac', click: a.open },
    { type: 'separator' },
    { label: syncLabel(s), enabled: false },
  ];
  if (s.conflicts > 0) items.push({ label: `${plural(s.conflicts, 'conflict', 'conflicts')} to resolve…`, click: a.open });
  items.push(
    // Nothing to sync with when local only; a sync already running is not started twice.
    { label: 'Sync now', enabled: s.state !== 'local' && s.state !== 'syncing', click: a.syncNow },
    { type: 'separator' },
    { label: 'Copy API URL and token', click: a.copyApiCredentials },
    { type: 'separator' },
    { label: 'Quit Bivouac', click: a.quit },
  );
  return items;
}

export interface AppMenuActions {
  command(c: ShellCommand): void;
  exportBackup(): void;
  openDataFolder(): void;
  openLogFolder(): void;
  openApiDocs(): void;
  copyApiCredentials(): void;
  quit(): void;
}

export function appMenu(o: { platform: string; packaged: boolean; appName: string }, a: AppMenuActions): MenuItem[] {
  const mac = o.platform === 'darwin';
  const settings: MenuItem = { label: mac ? 'Settings…' : 'Settings…', accelerator: 'CmdOrCtrl+,', click: () => a.command('settings') };
  const file: MenuItem = {
    label: 'File',
    submenu: [
      ...(mac ? [] : [settings, { type: 'separator' } as MenuItem]),
      { label: 'Export backup…', click: a.exportBackup },
      { label: 'Open data folder', click: a.openDataFolder },
      { label: 'Copy API URL and token', click: a.copyApiCredentials },
      { type: 'separator' },
      mac ? { role: 'close' } : { label: 'Quit', accelerator: 'Ctrl+Q', click: a.quit },
    ],
  };
  const edit: MenuItem = {
    label: 'Edit',
    submenu: [
      { role: 'undo' }, { role: 'redo' }, { type: 'separator' },
      { role: 'cut' }, { role: 'copy' }, { role: 'paste' },
      ...(mac ? [{ role: 'pasteAndMatchStyle' } as MenuItem] : []),
      { role: 'delete' }, { type: 'separator' }, { role: 'selectAll' },
      { type: 'separator' },
      { label: 'Search…', accelerator: 'CmdOrCtrl+F', click: () => a.command('search') },
    ],
  };
  const view: MenuItem = {
    label: 'View',
    submenu: [
      { label: 'Todos', accelerator: 'CmdOrCtrl+1', click: () => a.command('view:todos') },
      { label: 'Messages', accelerator: 'CmdOrCtrl+2', click: () => a.command('view:messages') },
      { label: 'Timesheet', accelerator: 'CmdOrCtrl+3', click: () => a.command('view:time') },
      { label: 'Time report', accelerator: 'CmdOrCtrl+4', click: () => a.command('view:report') },
      { type: 'separator' },
      // Reloading and DevTools are for development: a packaged app shows neither.
      ...(o.packaged ? [] : [{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as MenuItem[]),
      { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };
  const help: MenuItem = {
    role: 'help',
    label: 'Help',
    submenu: [
      { label: 'Keyboard shortcuts', click: () => a.command('help') },
      { label: 'API documentation', click: a.openApiDocs },
      { type: 'separator' },
      { label: 'Open data folder', click: a.openDataFolder },
      { label: 'Open log folder', click: a.openLogFolder },
      ...(mac ? [] : [{ type: 'separator' }, { role: 'about', label: `About ${o.appName}` }] as MenuItem[]),
    ],
  };
  if (!mac) return [file, edit, view, help];
  const appItem: MenuItem = {
    label: o.appName,
    submenu: [
      { role: 'about' }, { type: 'separator' }, settings, { type: 'separator' },
      { role: 'services' }, { type: 'separator' },
      { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' },
      { label: `Quit ${o.appName}`, accelerator: 'Cmd+Q', click: a.quit },
    ],
  };
  const windowItem: MenuItem = { label: 'Window', submenu: [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }] };
  return [appItem, file, edit, view, windowItem, help];
}

/** Every accelerator of a menu (deep). */
export function accelerators(items: readonly MenuItem[]): string[] {
  return items.flatMap((i) => [...(i.accelerator ? [i.accelerator] : []), ...accelerators(i.submenu ?? [])]);
}
