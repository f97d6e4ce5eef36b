// electron/preload.ts with `electron` replaced by a recorder: it exposes exactly the contract of
// shared/ipc.ts through one frozen contextBridge object, and nothing when main refuses the session.

import { describe, it, expect, vi, beforeEach } from 'vitest';
import { INVOKE_CHANNELS, SESSION_CHANNEL } from '../../shared/ipc.ts';

const electron = vi.hoisted(() => ({
  exposed: [] as [string, unknown][],
  session: null as unknown,
  invoked: [] as unknown[][],
  listeners: new Map<string, ((e: unknown, p: unknown) => void)[]>(),
  sentSync: [] as string[],
}));

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => { electron.exposed.push([key, api]); } },
  ipcRenderer: {
    sendSync: (channel: string) => { electron.sentSync.push(channel); return electron.session; },
    invoke: async (...a: unknown[]) => { electron.invoked.push(a); return 'answer'; },
    on: (c: string, l: (e: unknown, p: unknown) => void) => { electron.listeners.set(c, [...(electron.listeners.get(c) ?? []), l]); },
    removeListener: (c: string, l: (e: unknown, p: unknown) => void) => { electron.listeners.set(c, (electron.listeners.get(c) ?? []).filter((x) => x !== l)); },
  },
}));

type Bridge = Record<string, unknown> & {
  invoke(c: string, ...a: unknown[]): Promise<unknown>;
  on(c: string, l: (p: unknown) => void): () => void;
};

async function loadPreload(session: unknown): Promise<Bridge | null> {
  electron.exposed.length = 0;
  electron.session = session;
  vi.resetModules();
  await import('../../electron/preload.ts');
  expect(electron.sentSync.at(-1)).toBe(SESSION_CHANNEL);
  if (electron.exposed.length === 0) return null;
  expect(electron.exposed).toHaveLength(1);
  expect(electron.exposed[0][0]).toBe('bivouac');
  return electron.exposed[0][1] as Bridge;
}

const SESSION = { token: 'tok', apiBase: 'http://127.0.0.1:4817', version: '1.2.3', platform: 'linux' };

beforeEach(() => {
  electron.invoked.length = 0;
  electron.listeners.clear();
});

describe('the preload', () => {
  it('exposes one frozen object: the session, invoke and on, nothing else', async () => {
    const b = (await loadPreload({ ...SESSION, extra: 'not passed on' }))!;
    expect(Object.keys(b).sort()).toEqual(['apiBase', 'invoke', 'on', 'platform', 'token', 'version']);
    expect(Object.isFrozen(b)).toBe(true);
    expect(b.token).toBe('tok');
    expect(b.apiBase).toBe('http://127.0.0.1:4817');
  });

  it('exposes nothing when main refuses the session (a page of another origin)', async () => {
    expect(await loadPreload(null)).toBeNull();
    expect(await loadPreload({ token: 'tok', baseUrl: 'x' })).toBeNull();
  });

  it('invoke passes the contract\'s channels on and refuses others', async () => {
    const b = (await loadPreload(SESSION))!;
    for (const c of INVOKE_CHANNELS) await b.invoke(c);
    expect(electron.invoked.map((a) => a[0])).toEqual(INVOKE_CHANNELS);
    await b.invoke('shell:open-external', 'https://example.com/');
    expect(electron.invoked.at(-1)).toEqual(['shell:open-external', 'https://example.com/']);
    await expect(b.invoke('shell:session')).rejects.toThrow(/no such channel/);
    await expect(b.invoke('some:other')).rejects.toThrow(/no such channel/);
    expect(electron.invoked).toHaveLength(INVOKE_CHANNELS.length + 1);
  });

  it('on gives the listener the payload only (never the event with its sender), and stops', async () => {
    const b = (await loadPreload(SESSION))!;
    const got: unknown[] = [];
    const off = b.on('shell:command', (p) => got.push(p));
    for (const l of electron.listeners.get('shell:command')!) l({ sender: 'ipcRenderer itself' }, 'settings');
    expect(got).toEqual(['settings']);
    off();
    expect(electron.listeners.get('shell:command')).toEqual([]);
    expect(() => b.on('ipc:anything', () => undefined)).toThrow(/no such event/);
  });
});
