import { expect, test } from '@playwright/test';
import { screen, signIn, USERS } from './helpers.ts';

test('sign in: wrong password, token, session kept on reload, shortcuts overlay, sign out', async ({ page }) => {
  await page.goto('/');
  await page.getByLabel('User name').fill('fran');
  await page.getByLabel('Password').fill('wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Wrong user name, password or token.');

  await page.getByRole('button', { name: 'API token' }).click();
  await page.getByLabel('API token').fill('5aac8c4132687845b7119d564bfd9980c282a594');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('.me')).toHaveText('Fran Firm');
  await expect(page.getByRole('status').filter({ hasText: 'Local only' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Desktop settings' })).toHaveCount(0); // browser mode: no shell
  await page.reload();
  await expect(page.locator('.me')).toHaveText('Fran Firm');

  await page.locator('body').press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toContainText('Alt + ↑ / ↓');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await page.keyboard.press('2');
  await expect(page).toHaveURL(/\/messages$/);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Bivouac' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in to Bivouac' })).toBeVisible();
  void signIn; void USERS;
});

test('the Electron shell token signs in without a form', async ({ page }) => {
  await desktopMode(page, '1d76dc0273d01614fbd219aab81a081e6603ded6');
  await page.goto('/');
  await expect(page.locator('.me')).toContainText('Cleo Client');
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0);
});

// Desktop mode: the bridge object injected before the page runs, as the Electron preload exposes it
// (shared/ipc.ts's BivouacBridge: the session, `invoke` for the shell's channels, `on` for its events).
// The fake records the calls and lets the test send the shell's events.
const FRAN_TOKEN = '5aac8c4132687845b7119d564bfd9980c282a594';

type Recorded = { calls: [string, unknown[]][]; emit(channel: string, payload: unknown): void };

async function desktopMode(page: import('@playwright/test').Page, userToken = FRAN_TOKEN): Promise<void> {
  await page.addInitScript((token) => {
    const listeners: Record<string, ((p: unknown) => void)[]> = {};
    const calls: [string, unknown[]][] = [];
    let settings = { startAtLogin: false, keepInTray: true, apiPort: 4817 };
    const sync = { state: 'idle', pending: 1, conflicts: 0, progress: null, lastSyncedAt: null, message: null };
    const state = () => ({ settings, apiUrl: location.origin, portMessage: null, dataDir: '/home/me/.config/Bivouac/data',
      logFile: '/home/me/.config/Bivouac/logs/bivouac.log', secretsEncrypted: true, sync });
    const answers: Record<string, (...a: unknown[]) => unknown> = {
      'shell:state': () => state(),
      'shell:set-settings': (patch) => {
        const p = patch as { apiPort?: number };
        if (p.apiPort === 5555) return { ok: false, error: 'Port 5555 is in use by another program. Pick another one.' };
        settings = { ...settings, ...(patch as object) };
        return { ok: true, state: state() };
      },
      'shell:export-backup': () => ({ file: '/home/me/Documents/bivouac-backup.json' }),
      'sync:status': () => sync,
      'sync:run': () => ({ ...sync, state: 'syncing', progress: { done: 1, total: 10, phase: 'pull' } }),
    };
    const w = window as unknown as { bivouac: object; __shell: Recorded };
    w.__shell = { calls, emit: (c, p) => { for (const l of listeners[c] ?? []) l(p); } };
    w.bivouac = Object.freeze({
      token, apiBase: location.origin, version: '9.9.9', platform: 'linux',
      invoke: async (channel: string, ...args: unknown[]) => { calls.push([channel, args]); return answers[channel]?.(...args); },
      on: (channel: string, l: (p: unknown) => void) => {
        (listeners[channel] ??= []).push(l);
        return () => { listeners[channel] = listeners[channel].filter((x) => x !== l); };
      },
    });
  }, userToken);
}

const calls = (page: import('@playwright/test').Page) => page.evaluate(() => (window as unknown as { __shell: Recorded }).__shell.calls);
const emit = (page: import('@playwright/test').Page, channel: string, payload: unknown) =>
  page.evaluate(([c, p]) => (window as unknown as { __shell: Recorded }).__shell.emit(c as string, p), [channel, payload] as const);

test('desktop mode: no sign-in, and the shell\'s actions are wired', async ({ page }) => {
  await desktopMode(page);
  await page.goto('/');
  await expect(page.locator('.me')).toHaveText('Fran Firm');
  await expect(page.getByRole('heading', { name: 'Sign in to Bivouac' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0);

  // The settings panel, from the header.
  await page.getByRole('button', { name: 'Desktop settings' }).click();
  const panel = page.getByRole('dialog', { name: 'Desktop settings' });
  await expect(panel).toContainText('/home/me/.config/Bivouac/data');
  await expect(panel.getByRole('status').first()).toHaveText('1 to sync');
  await panel.getByRole('button', { name: 'Copy API URL and token' }).click();
  await expect(panel.getByRole('status').last()).toHaveText('Copy API URL and token: done');
  await panel.getByRole('button', { name: 'Export backup…' }).click();
  await expect(panel.getByRole('status').last()).toHaveText('Backup saved to /home/me/Documents/bivouac-backup.json');
  await panel.getByRole('button', { name: 'Open data folder' }).click();
  await panel.getByLabel(/Keep running in the tray/).uncheck();
  await expect(panel.getByLabel(/Keep running in the tray/)).not.toBeChecked();
  await panel.getByLabel(/Start Bivouac when I log in/).check();
  await expect(panel.getByLabel(/Start Bivouac when I log in/)).toBeChecked();
  await panel.getByLabel('Port').fill('5555');
  await panel.getByRole('button', { name: 'Save port' }).click();
  await expect(panel.getByRole('alert')).toHaveText('Port 5555 is in use by another program. Pick another one.');
  await panel.getByRole('button', { name: 'Sync now' }).click();
  await expect(panel.getByRole('status').first()).toHaveText('Syncing 10%…');
  await screen(page, 'desktop-settings');
  const made = (await calls(page)).map(([c, a]) => (a.length ? `${c} ${JSON.stringify(a)}` : c));
  expect(made).toEqual(expect.arrayContaining(['shell:state', 'shell:copy-api-credentials', 'shell:export-backup', 'shell:open-data-folder',
    'shell:set-settings [{"keepInTray":false}]', 'shell:set-settings [{"startAtLogin":true}]', 'shell:set-settings [{"apiPort":5555}]', 'sync:run']));
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);

  // The shell's events: menu commands, bivouac:// links, notices.
  await emit(page, 'shell:command', 'view:messages');
  await expect(page).toHaveURL(/\/messages$/);
  const pid = Number(/#\/projects\/(\d+)/.exec(page.url())![1]);
  await emit(page, 'shell:open-link', { hash: `#/projects/${pid}/time` });
  await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/time$`));
  await emit(page, 'shell:notice', { title: 'The window was reloaded', text: 'It had stopped (crashed). Everything you saved is kept.' });
  await expect(page.getByText('The window was reloaded')).toBeVisible();
  await emit(page, 'shell:command', 'settings');
  await expect(page.getByRole('dialog', { name: 'Desktop settings' })).toBeVisible();
  // The page's own shortcuts still work in desktop mode.
  await page.keyboard.press('Escape');
  // (focus is back on the header's settings button, where single keys are not shortcuts: D264)
  await page.getByRole('heading', { name: 'Timesheet', level: 1 }).click();
  await page.keyboard.press('1');
  await expect(page).toHaveURL(/\/todos$/);
});

test('signing in with a password keeps only the API token: sessionStorage never holds the password', async ({ page }) => {
  const auths: string[] = [];
  page.on('request', (r) => { const a = r.headers().authorization; if (a) auths.push(Buffer.from(a.replace(/^Basic /, ''), 'base64').toString()); });
  const stored = () => page.evaluate(() => Object.keys(sessionStorage).map((k) => `${k}=${sessionStorage.getItem(k)}`).join('\n'));
  await signIn(page, 'fran');
  await expect(page.locator('.me')).toHaveText('Fran Firm');
  expect(await stored()).not.toContain(USERS.fran.password);
  expect(await stored()).toContain('5aac8c4132687845b7119d564bfd9980c282a594');
  await page.reload();
  await expect(page.locator('.me')).toHaveText('Fran Firm');
  expect(await stored()).not.toContain(USERS.fran.password);
  // Only the sign-in check itself carries the password; every later request signs with the token.
  const withPassword = auths.filter((a) => a.includes(USERS.fran.password));
  expect(withPassword).toHaveLength(1);
  expect(auths.at(-1)).toBe('5aac8c4132687845b7119d564bfd9980c282a594:X');
});
