import { expect, test } from '@playwright/test';
import { signIn, USERS } from './helpers.ts';

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
  await page.addInitScript(() => { (window as unknown as { bivouac: object }).bivouac = { token: '1d76dc0273d01614fbd219aab81a081e6603ded6' }; });
  await page.goto('/');
  await expect(page.locator('.me')).toContainText('Cleo Client');
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(0);
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
