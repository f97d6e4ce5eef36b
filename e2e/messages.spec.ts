import { expect, test, type Page } from '@playwright/test';
import { newProject, openBoard, screen, settled, signIn } from './helpers.ts';

async function post(page: Page, title: string, body: string, category: string) {
  await page.getByRole('button', { name: 'New message' }).click();
  const form = page.getByRole('form', { name: 'New message' });
  await form.getByLabel('Title').fill(title);
  await form.getByLabel('Message').fill(body);
  await form.getByLabel('Category').selectOption({ label: category });
  await form.getByRole('button', { name: 'Post message' }).click();
  await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
  await settled(page);
}

test('message board: categories, posting, comments, category filter, archive', async ({ page, request }) => {
  const pid = await newProject(request, 'Basecamp news');
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'messages');
  await expect(page.getByRole('heading', { name: 'No messages yet' })).toBeVisible();

  for (const c of ['Status reports', 'Risks']) {
    await page.getByLabel('New category name').fill(c);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(page.getByRole('button', { name: new RegExp(`^${c}`) })).toBeVisible();
  }
  await post(page, 'Weekly status', 'All green this week.\n\nNext: the summit push, weather permitting.', 'Status reports');
  await page.getByLabel('Your comment').fill('Great — see you at the hut.');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await expect(page.locator('.comment-list')).toContainText('Great — see you at the hut.');
  await page.getByRole('button', { name: '← All messages' }).click();
  await post(page, 'Avalanche risk', 'Level 3 above 2,400 m.', 'Risks');
  await page.getByRole('button', { name: '← All messages' }).click();
  await post(page, 'Kick-off notes', 'Who brings the stove?', 'No category');

  // after a reload: the message page shows the comment
  const url = page.url();
  await page.goto(url.replace(/messages\/\d+$/, 'messages'));
  await page.getByRole('link', { name: /^Weekly status/ }).click();
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Weekly status' })).toBeVisible();
  await expect(page.locator('.comment-list')).toContainText('Great — see you at the hut.');
  await expect(page.locator('.message-body p')).toHaveText(['All green this week.', 'Next: the summit push, weather permitting.']);

  // newest first, then filter by category
  await page.getByRole('button', { name: '← All messages' }).click();
  await expect(page.locator('.post-title')).toHaveText(['Kick-off notes', 'Avalanche risk', 'Weekly status']);
  await page.getByRole('button', { name: /^Status reports/ }).click();
  await expect(page.locator('.post-title')).toHaveText(['Weekly status']);
  await page.getByRole('button', { name: /^Risks/ }).click();
  await expect(page.locator('.post-title')).toHaveText(['Avalanche risk']);
  await screen(page, 'messages-filtered');
  await page.reload(); // the filter is in the URL and survives a reload
  await expect(page.getByRole('button', { name: /^Risks/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.post-title')).toHaveText(['Avalanche risk']);
  await page.getByRole('button', { name: /^Status reports/ }).click();
  await expect(page.locator('.post-title')).toHaveText(['Weekly status']);
  await page.goBack(); // and the back button returns to the previous one
  await expect(page.locator('.post-title')).toHaveText(['Avalanche risk']);

  // a category that still has posts cannot be deleted: readable message
  await page.getByRole('button', { name: 'Delete category Risks' }).click();
  await expect(page.getByRole('alert')).toContainText('“Risks” still has messages');
  await expect(page.getByRole('button', { name: /^Risks/ })).toBeVisible();
  // rename a category
  await page.getByRole('button', { name: 'Rename category Risks' }).click();
  await page.getByLabel('New name for Risks').fill('Hazards');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await settled(page);

  // archive lists all
  await page.getByRole('button', { name: /^All messages/ }).click();
  await page.getByRole('button', { name: 'Archive' }).click();
  await expect(page.locator('table.archive tbody tr')).toHaveCount(3);
  await expect(page.locator('table.archive')).toContainText('Hazards');

  // edit and delete a message
  await page.getByRole('button', { name: 'Kick-off notes' }).click();
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByRole('form', { name: 'Edit message' }).getByLabel('Title').fill('Kick-off notes (final)');
  await page.getByRole('button', { name: 'Save message' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Kick-off notes (final)' })).toBeVisible();
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.getByRole('button', { name: /Yes, delete it/ }).click();
  await settled(page);
  await page.getByRole('button', { name: 'Recent' }).click();
  await page.reload();
  await expect(page.locator('.post-title')).toHaveText(['Avalanche risk', 'Weekly status']);
  await screen(page, 'messages');
});
