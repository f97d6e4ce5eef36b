import { expect, test } from '@playwright/test';
import { apiCall, openBoard, projectId, screen, settled, signIn, uniq } from './helpers.ts';

test('a client-company user does not see private lists, items, messages or comments', async ({ page, browser, request }) => {
  const pid = await projectId(request, 'Alpha Ascent');
  const secret = uniq('Fee negotiation');
  const shared = uniq('Client checklist');

  // Fran (firm) makes a private list in the UI, and a public one
  await signIn(page, 'fran');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await page.getByRole('button', { name: 'New list' }).click();
  await page.getByLabel('List name').fill(secret);
  await page.getByLabel('Private (hidden from clients)').check();
  await page.getByRole('button', { name: 'Create list' }).click();
  await expect(page.locator('.column', { hasText: secret }).locator('.badge.private')).toBeVisible();
  await page.getByRole('button', { name: 'New list' }).click();
  await page.getByLabel('List name').fill(shared);
  await page.getByRole('button', { name: 'Create list' }).click();
  await settled(page);
  await page.locator('.column', { hasText: secret }).getByPlaceholder('Add an item…').fill('Margin is 30%');
  await page.locator('.column', { hasText: secret }).getByRole('button', { name: /^Add item/ }).click();
  await page.locator('.column', { hasText: shared }).getByPlaceholder('Add an item…').fill('Sign the waiver');
  await page.locator('.column', { hasText: shared }).getByRole('button', { name: /^Add item/ }).click();
  await settled(page);

  // a private and a public message (with a private comment), through the UI
  await openBoard(page, pid, 'messages');
  await page.getByRole('button', { name: 'New message' }).click();
  let form = page.getByRole('form', { name: 'New message' });
  await form.getByLabel('Title').fill(`${secret} memo`);
  await form.getByRole('textbox', { name: 'Message', exact: true }).fill('Only for us.'); // a message needs a text (D264)
  await form.getByLabel('Private (only the firm sees it)').check();
  await form.getByRole('button', { name: 'Post message' }).click();
  await expect(page.getByRole('heading', { level: 1, name: `${secret} memo` })).toBeVisible();
  await page.getByRole('button', { name: '← All messages' }).click();
  await page.getByRole('button', { name: 'New message' }).click();
  form = page.getByRole('form', { name: 'New message' });
  await form.getByLabel('Title').fill(`${shared} update`);
  await form.getByRole('textbox', { name: 'Message', exact: true }).fill('For everyone.');
  await form.getByRole('button', { name: 'Post message' }).click();
  await expect(page.getByRole('heading', { level: 1, name: `${shared} update` })).toBeVisible();
  await page.getByLabel('Your comment').fill('Internal: bill the extra day.');
  await page.getByLabel('Private (firm only)').check();
  await page.getByRole('button', { name: 'Add comment' }).click();
  await page.getByLabel('Your comment').fill('Welcome aboard!');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await expect(page.locator('.comment-list > li')).toHaveCount(2);
  await settled(page);

  // Cleo (client) signs in in another browser context
  const ctx = await browser.newContext();
  const cleo = await ctx.newPage();
  await signIn(cleo, 'cleo');
  await expect(cleo.getByLabel('Project').locator('option')).toHaveText(['Alpha Ascent']);
  await openBoard(cleo, pid, 'todos');
  await cleo.reload();
  await expect(cleo.getByRole('heading', { name: shared, exact: true })).toBeVisible();
  await expect(cleo.getByText('Sign the waiver')).toBeVisible();
  await expect(cleo.getByText(secret)).toHaveCount(0);
  await expect(cleo.getByText('Margin is 30%')).toHaveCount(0);
  await expect(cleo.getByText('Private (hidden from clients)')).toHaveCount(0);

  await openBoard(cleo, pid, 'messages');
  await cleo.reload();
  await expect(cleo.getByRole('link', { name: new RegExp(`^${shared} update`) })).toBeVisible();
  await expect(cleo.getByText(`${secret} memo`)).toHaveCount(0);
  await cleo.getByRole('link', { name: new RegExp(`^${shared} update`) }).click();
  await cleo.reload();
  await expect(cleo.locator('.comment-list > li')).toHaveCount(1);
  await expect(cleo.locator('.comment-list')).toContainText('Welcome aboard!');
  await expect(cleo.getByText('Internal: bill the extra day.')).toHaveCount(0);
  await expect(cleo.getByLabel('Private (firm only)')).toHaveCount(0);

  // the search does not find private records either
  await cleo.keyboard.press('/');
  await cleo.getByLabel('Search messages and todos').fill(secret.split(' ')[0]);
  await expect(cleo.getByText(/Nothing matches/)).toBeVisible();
  await cleo.keyboard.press('Escape');
  await screen(cleo, 'client-view');
  await ctx.close();

  // the firm still sees both
  await openBoard(page, pid, 'todos');
  await page.reload();
  await expect(page.getByRole('heading', { name: secret, exact: true })).toBeVisible();
  void apiCall;
});
