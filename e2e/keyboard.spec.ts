import { expect, test, type Page } from '@playwright/test';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

const card = (page: Page, text: string) => page.locator('.card', { has: page.getByRole('button', { name: text, exact: true }) });

test('keyboard: focus follows attention (panel, after delete, after Esc, after a board switch), one Tab stop per card, moves announced, overdue in words', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Eiger'));
  const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Prep' } });
  for (const c of ['Train on ice', 'Check crampons', 'Book the train']) await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: c } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Renew the permit', due_at: '2020-01-15' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await settled(page);

  // one Tab stop per card
  await card(page, 'Train on ice').focus();
  await page.keyboard.press('Tab');
  await expect(card(page, 'Check crampons')).toBeFocused();

  // a keyboard move is announced
  await page.keyboard.press('Alt+ArrowDown');
  await settled(page);
  await expect(page.getByTestId('announcer')).toContainText('“Check crampons” is now in Prep, position 3 of 4');
  await expect(card(page, 'Check crampons')).toBeFocused();

  // Enter opens the item and focus goes to its panel; Esc returns to the card
  await page.keyboard.press('Enter');
  const panel = page.getByRole('complementary');
  await expect(panel.getByRole('heading', { name: 'Check crampons' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(card(page, 'Check crampons')).toBeFocused();

  // after deleting, focus goes to the next card
  await card(page, 'Book the train').focus();
  await page.keyboard.press('Enter');
  await panel.getByRole('button', { name: 'Delete item' }).click();
  await panel.getByRole('button', { name: 'Yes, delete it' }).click();
  await settled(page);
  await expect(card(page, 'Check crampons')).toBeFocused();

  // Esc on the new-list form returns focus to "New list"
  await page.getByRole('button', { name: 'New list' }).click();
  await expect(page.getByLabel('List name')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('button', { name: 'New list' })).toBeFocused();

  // switching boards with a number key puts focus on the new board's heading (from the page: on a
  // button, single keys are not shortcuts, issue #28)
  await page.getByRole('heading', { name: 'Todos', level: 1 }).click();
  await page.keyboard.press('2');
  await expect(page.getByRole('heading', { name: 'Messages', level: 1 })).toBeFocused();

  // overdue is said in words, not only by colour
  await page.locator('body').press('1');
  await expect(card(page, 'Renew the permit').locator('.due')).toContainText('Overdue');
  await expect(card(page, 'Renew the permit')).toHaveAttribute('aria-label', 'Renew the permit (overdue)');
});
