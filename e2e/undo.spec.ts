import { expect, test, type Page } from '@playwright/test';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

interface Item { id: number; content: string; completed: boolean }
const itemsOf = async (request: Parameters<typeof apiCall>[0], listId: number) =>
  (await apiCall<Item[]>(request, 'ada', 'GET', `/todo_lists/${listId}/todo_items.json`)).map((i) => `${i.content}${i.completed ? ' ✓' : ''}`);
const cards = (page: Page, list: string) => page.locator('.column', { has: page.getByRole('heading', { name: list, exact: true }) }).locator('.card .content');

test('undo: completing, deleting and moving items and lists (toast and Ctrl+Z); confirmations where undo is impossible', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Matterhorn'));
  const a = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Before' } });
  const b = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'During' } });
  for (const c of ['Book the hut', 'Check the forecast', 'Pack light']) await apiCall(request, 'ada', 'POST', `/todo_lists/${a.id}/todo_items.json`, { todo_item: { content: c } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${b.id}/todo_items.json`, { todo_item: { content: 'Start at 4' } });
  const post = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Summit day', body: 'Plan.' } });
  await apiCall(request, 'ada', 'POST', `/posts/${post.id}/comments.json`, { comment: { body: 'Looks good' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/categories.json`, { category: { name: 'Empty one', type: 'post' } });

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await expect(cards(page, 'Before')).toHaveText(['Book the hut', 'Check the forecast', 'Pack light']);

  // complete, then Undo from the toast
  await page.getByRole('checkbox', { name: /Check the forecast/ }).check();
  await settled(page);
  await page.locator('.toast').getByRole('button', { name: 'Undo' }).click();
  await settled(page);
  await expect.poll(() => itemsOf(request, a.id)).toEqual(['Book the hut', 'Check the forecast', 'Pack light']);

  // delete an item, then Ctrl+Z: it comes back at its place
  await page.getByRole('button', { name: 'Book the hut', exact: true }).click();
  await page.getByRole('button', { name: 'Delete item' }).click();
  await page.getByRole('button', { name: 'Yes, delete it' }).click();
  await settled(page);
  await expect(cards(page, 'Before')).toHaveText(['Check the forecast', 'Pack light']);
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('Control+z');
  await settled(page);
  await expect(cards(page, 'Before')).toHaveText(['Book the hut', 'Check the forecast', 'Pack light']);
  await expect.poll(() => itemsOf(request, a.id)).toEqual(['Book the hut', 'Check the forecast', 'Pack light']);

  // move an item to another list with the keyboard, then Undo
  const card = page.locator('.card', { has: page.getByRole('button', { name: 'Pack light', exact: true }) });
  await card.focus();
  await page.keyboard.press('Alt+ArrowRight');
  await settled(page);
  await expect(cards(page, 'During')).toContainText(['Pack light']);
  await page.locator('.toast').getByRole('button', { name: 'Undo' }).click();
  await settled(page);
  await expect(cards(page, 'Before')).toHaveText(['Book the hut', 'Check the forecast', 'Pack light']);
  await expect.poll(() => itemsOf(request, b.id)).toEqual(['Start at 4']);

  // delete a whole list, then Undo: the list and its items come back
  await page.getByRole('button', { name: 'Delete list During' }).click();
  await page.getByRole('button', { name: 'Confirm deleting list During' }).click();
  await settled(page);
  await expect(page.getByRole('heading', { name: 'During', exact: true })).toHaveCount(0);
  await page.locator('.toast').getByRole('button', { name: 'Undo' }).click();
  await settled(page);
  await expect(cards(page, 'During')).toHaveText(['Start at 4']);
  await expect(page.locator('.column h2')).toHaveText(['Before', 'During']);

  // deleting a comment and an empty category asks first (they cannot be undone); counts follow
  await openBoard(page, pid, 'messages');
  await page.locator('.post-list').getByText('Summit day').click();
  await page.getByRole('button', { name: 'Delete comment' }).click();
  await expect(page.locator('.comment-list')).toContainText('Looks good');
  await page.getByRole('button', { name: 'Confirm deleting the comment' }).click();
  await settled(page);
  await expect(page.locator('.comment-list')).not.toContainText('Looks good');
  await page.getByRole('button', { name: '← All messages' }).click();
  await expect(page.locator('.post-list .comments')).toHaveAttribute('aria-label', '0 comments');
  await page.getByRole('button', { name: 'Delete category Empty one' }).click();
  await expect(page.getByRole('button', { name: /^Empty one/ })).toBeVisible();
  await page.getByRole('button', { name: 'Confirm deleting category Empty one' }).click();
  await settled(page);
  await expect(page.getByRole('button', { name: /^Empty one/ })).toHaveCount(0);
});
