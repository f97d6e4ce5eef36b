import { expect, test } from '@playwright/test';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

test('drafts of messages, comments and the item panel survive Esc, board switches, other items and a reload', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Weisshorn'));
  const post = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Route notes', body: 'North ridge.' } });
  const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Kit' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Ice screws' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Rope 60 m' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));

  // a new message: Esc closes the form but keeps what was typed
  await openBoard(page, pid, 'messages');
  await page.getByRole('button', { name: 'New message' }).click();
  const form = page.getByRole('form', { name: 'New message' });
  await form.getByLabel('Title').fill('Hut booking');
  await form.getByLabel('Message').fill('We have 6 beds on Friday.');
  await form.getByLabel('Message').press('Escape');
  await expect(form).toHaveCount(0);
  await page.getByRole('button', { name: 'New message' }).click();
  await expect(form.getByLabel('Title')).toHaveValue('Hut booking');
  await expect(form.getByLabel('Message')).toHaveValue('We have 6 beds on Friday.');
  await expect(form.getByText('Your unsaved draft is back')).toBeVisible();

  // a comment on a message survives a switch of board and a reload
  await page.evaluate((id) => { window.location.hash = `#/projects/${location.hash.split('/')[2]}/messages/${id}`; }, post.id);
  const comment = page.getByLabel('Your comment');
  await comment.fill('I can bring the stove.');
  await page.getByRole('navigation', { name: 'Boards' }).getByRole('button', { name: 'Todos' }).click();
  await page.getByRole('navigation', { name: 'Boards' }).getByRole('button', { name: 'Messages' }).click();
  await page.locator('.post-list').getByText('Route notes').click();
  await expect(comment).toHaveValue('I can bring the stove.');
  await page.reload();
  await expect(comment).toHaveValue('I can bring the stove.');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await expect(page.locator('.comment-list')).toContainText('I can bring the stove.');
  await expect(comment).toHaveValue('');
  await page.reload();
  await expect(comment).toHaveValue('');

  // the item panel: edits of one item stay when another item is opened, and after a reload
  await openBoard(page, pid, 'todos');
  await page.getByRole('button', { name: 'Ice screws', exact: true }).click();
  const panel = page.getByRole('complementary');
  await panel.getByLabel('What needs doing').fill('Ice screws (6, short)');
  await panel.getByRole('textbox', { name: 'Comment' }).fill('Two are blunt.');
  await page.getByRole('button', { name: 'Rope 60 m', exact: true }).click();
  await expect(panel.getByLabel('What needs doing')).toHaveValue('Rope 60 m');
  await expect(panel.getByRole('textbox', { name: 'Comment' })).toHaveValue('');
  await page.getByRole('button', { name: 'Ice screws', exact: true }).click();
  await expect(panel.getByLabel('What needs doing')).toHaveValue('Ice screws (6, short)');
  await expect(panel.getByRole('textbox', { name: 'Comment' })).toHaveValue('Two are blunt.');
  await expect(panel.getByText('Unsaved changes')).toBeVisible();
  await page.keyboard.press('Escape');
  await page.reload();
  await page.getByRole('button', { name: 'Ice screws', exact: true }).click();
  await expect(panel.getByLabel('What needs doing')).toHaveValue('Ice screws (6, short)');
  await panel.getByRole('button', { name: 'Save changes' }).click();
  await settled(page);
  await expect(page.getByRole('button', { name: 'Ice screws (6, short)', exact: true })).toBeVisible();
  await expect(panel.getByText('Unsaved changes')).toHaveCount(0);

  // drafts belong to the user: another user signed in on the same browser does not see them
  const keys = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('bivouac:draft:')));
  expect(keys.every((k) => /^bivouac:draft:\d+:/.test(k))).toBe(true);
  expect(keys.some((k) => k.endsWith(':post:new:' + String(pid)))).toBe(true);
});
