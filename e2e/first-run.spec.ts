// First run on an empty data directory (--no-demo): the CLI says what to do, the UI offers to create
// your own account or load the demo; the sign-in page then names the demo's credentials.
import { expect, test } from '@playwright/test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const node = existsSync(join(root, 'node_modules/.bin/node')) ? join(root, 'node_modules/.bin/node') : process.execPath;

async function start(dir: string): Promise<{ url: string; out: () => string; child: ChildProcess }> {
  const child = spawn(node, [join(root, 'electron/cli.ts'), 'serve', '--port', '0', '--data-dir', dir, '--no-demo'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += String(d); });
  for (let i = 0; i < 300 && !/running at (\S+)\//.test(out); i++) await new Promise((r) => setTimeout(r, 100));
  const url = /running at (\S+)\//.exec(out)![1];
  return { url, out: () => out, child };
}

test('first run: create your own account from the UI; the terminal no longer names a token file that does not exist', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-first-'));
  const s = await start(dir);
  try {
    expect(s.out()).toContain('No account yet');
    expect(s.out()).not.toContain('api-token');
    await page.goto(`${s.url}/`);
    await expect(page.getByRole('heading', { name: 'Welcome to Bivouac' })).toBeVisible();
    mkdirSync(join(root, 'docs/screens'), { recursive: true });
    await page.screenshot({ path: join(root, 'docs/screens/first-run.png') });
    await page.getByLabel('Firm name').fill('Aiguille Guides');
    await page.getByLabel('First name').fill('Maya');
    await page.getByLabel('Last name').fill('Ortiz');
    await page.getByLabel('User name').fill('maya');
    await page.getByLabel('First project').fill('Winter season 2027');
    await page.getByLabel('Password').fill('rope-and-ice-2027');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible();
    await expect(page.locator('header .me')).toContainText('Maya Ortiz');
    await expect(page.getByLabel('Project')).toContainText('Winter season 2027');
    expect(existsSync(join(dir, 'api-token'))).toBe(true);
    // once there is an account the setup refuses
    const again = await page.request.post(`${s.url}/setup.json`, { data: { demo: true } });
    expect(again.status()).toBe(409);
  } finally {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('first run: load the demo; the sign-in page shows its credentials; its messages have distinct titles', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-demo-'));
  const s = await start(dir);
  try {
    await page.goto(`${s.url}/`);
    await page.getByRole('button', { name: 'Load the demo account' }).click();
    const note = page.getByRole('note');
    await expect(note).toContainText('demo account');
    await expect(note).toContainText('alex');
    await note.getByRole('button', { name: 'Fill it in' }).click();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible();
    const auth = { Authorization: `Basic ${Buffer.from('alex:bivouac').toString('base64')}` };
    const projects = await (await page.request.get(`${s.url}/projects.json`, { headers: auth })).json() as { id: number }[];
    const titles: string[] = [];
    for (const p of projects) titles.push(...(await (await page.request.get(`${s.url}/projects/${p.id}/posts.json`, { headers: auth })).json() as { title: string }[]).map((x) => x.title));
    expect(titles.length).toBeGreaterThan(3);
    expect(new Set(titles).size).toBe(titles.length);
  } finally {
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
});

test('first run from the command line: bivouac setup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-cli-'));
  try {
    const bad = spawnSync(node, [join(root, 'electron/cli.ts'), 'setup', '--data-dir', dir, '--firm', 'Col Guides', '--first-name', 'Ana', '--last-name', 'Ruiz', '--user', 'ana'],
      { cwd: root, input: 'short\n', encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Password must have at least 8 characters');
    const ok = spawnSync(node, [join(root, 'electron/cli.ts'), 'setup', '--data-dir', dir, '--firm', 'Col Guides', '--first-name', 'Ana', '--last-name', 'Ruiz', '--user', 'ana'],
      { cwd: root, input: 'long-enough-pass\n', encoding: 'utf8' });
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain('created the account "Col Guides"');
    const token = spawnSync(node, [join(root, 'electron/cli.ts'), 'token', '--data-dir', dir], { cwd: root, encoding: 'utf8' });
    expect(token.stdout.trim()).toMatch(/^\w{16,}$/);
    const twice = spawnSync(node, [join(root, 'electron/cli.ts'), 'setup', '--demo', '--data-dir', dir], { cwd: root, encoding: 'utf8' });
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain('already holds an account');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
