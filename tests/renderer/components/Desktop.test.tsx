// Desktop mode of the page against a fake bridge (what the preload exposes), and the contract's
// type checks: a field the bridge does not have is a compile error (npm run typecheck).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render, screen, fireEvent } from '@testing-library/react';
import type { BivouacBridge, EventChannel, EventContract, ShellState } from '../../../shared/ipc.ts';
import { LOCAL_ONLY } from '../../../shared/ipc.ts';
import { DesktopShell, syncText, useDesktop } from '../../../renderer/components/Desktop.tsx';
import { useUi } from '../../../renderer/stores/ui.ts';

const STATE: ShellState = {
  settings: { startAtLogin: false, keepInTray: true, apiPort: 4817 }, apiUrl: 'http://127.0.0.1:4817', portMessage: null,
  dataDir: '/home/me/.config/Bivouac/data', logFile: '/home/me/.config/Bivouac/logs/bivouac.log', secretsEncrypted: true,
  sync: { ...LOCAL_ONLY, state: 'idle' },
};

function fakeBridge() {
  const listeners = new Map<string, ((p: unknown) => void)[]>();
  const invoke = vi.fn(async (channel: string) => (channel === 'shell:state' ? STATE : channel === 'sync:status' ? STATE.sync : undefined));
  const bridge = {
    token: 't', apiBase: 'http://127.0.0.1:4817', version: '1.2.3', platform: 'linux',
    invoke,
    on: (c: string, l: (p: unknown) => void) => {
      listeners.set(c, [...(listeners.get(c) ?? []), l]);
      return () => listeners.set(c, (listeners.get(c) ?? []).filter((x) => x !== l));
    },
  } as unknown as BivouacBridge;
  const emit = <E extends EventChannel>(c: E, p: EventContract[E]) => act(() => { for (const l of listeners.get(c) ?? []) l(p); });
  return { bridge, invoke, emit, listeners };
}

afterEach(() => {
  cleanup();
  delete window.bivouac;
  useDesktop.setState({ open: false, sync: null });
});

describe('desktop mode', () => {
  it('follows the shell: links change the route, notices become toasts, the settings command opens the panel', async () => {
    const f = fakeBridge();
    window.bivouac = f.bridge;
    render(<DesktopShell />);
    expect(f.invoke).toHaveBeenCalledWith('sync:status');
    f.emit('shell:open-link', { hash: '#/projects/7/messages/12' });
    expect(window.location.hash).toBe('#/projects/7/messages/12');
    f.emit('shell:notice', { title: 'The window was reloaded', text: 'It had stopped.' });
    expect(useUi.getState().toasts.at(-1)).toMatchObject({ title: 'The window was reloaded', lines: ['It had stopped.'] });
    f.emit('shell:command', 'help');
    expect(useUi.getState().overlay).toBe('help');
    f.emit('shell:command', 'settings');
    expect(await screen.findByRole('dialog', { name: 'Desktop settings' })).toBeTruthy();
    expect(await screen.findByText('/home/me/.config/Bivouac/data')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Copy API URL and token' }));
    expect(f.invoke).toHaveBeenCalledWith('shell:copy-api-credentials');
  });

  it('stops listening when unmounted', () => {
    const f = fakeBridge();
    window.bivouac = f.bridge;
    const { unmount } = render(<DesktopShell />);
    expect(f.listeners.get('shell:command')).toHaveLength(1);
    unmount();
    expect(f.listeners.get('shell:command')).toHaveLength(0);
  });

  it('sync lines', () => {
    expect(syncText({ ...STATE.sync, state: 'offline', pending: 2, conflicts: 1 })).toBe('Offline, 2 changes waiting, 1 conflict');
    expect(syncText({ ...STATE.sync, state: 'local' })).toBe('Local only: no team server');
  });

  it('the bridge type is the contract (drift is a type error)', () => {
    const b = fakeBridge().bridge;
    // @ts-expect-error the bridge has apiBase, not baseUrl
    void b.baseUrl;
    // @ts-expect-error no such channel in the contract
    void (() => b.invoke('shell:delete-everything'));
    // @ts-expect-error wrong argument type for a channel
    void (() => b.invoke('shell:set-settings', { apiPort: '4817' }));
    // @ts-expect-error a channel that takes no arguments
    void (() => b.invoke('shell:open-data-folder', '/etc'));
    expect(b.apiBase).toBe('http://127.0.0.1:4817');
  });
});
