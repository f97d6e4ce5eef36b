import { expect, test } from '@playwright/test';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';
import { addDays, today, weekStart } from '../renderer/lib/dates.ts';

test('live: changes from a second tab and from the API appear in the open board, keeping focus and typing; a new tab is signed in', async ({ page, context, request }) => {
  const name = uniq('Grand Combin');
  const pid = await newProject(request, name);
  const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Approach' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Take the bus to Bourg' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  const column = page.locator('.column', { has: page.getByRole('heading', { name: 'Approach', exact: true }) });
  await expect(column.locator('.card .content')).toHaveText(['Take the bus to Bourg']);

  // a second tab of the same browser session opens signed in (no sign-in form)
  const tab2 = await context.newPage();
  await tab2.goto(page.url());
  await expect(tab2.getByRole('navigation', { name: 'Boards' })).toBeVisible();
  await expect(tab2.getByLabel('Password')).toHaveCount(0);
  await expect(tab2.locator('.column', { has: tab2.getByRole('heading', { name: 'Approach', exact: true }) })).toBeVisible();

  // the first tab is typing a new item when the changes arrive
  await page.bringToFront();
  const input = column.getByPlaceholder('Add an item…');
  await input.fill('Half typ');
  await expect(input).toBeFocused();

  // a change in the second tab
  const col2 = tab2.locator('.column', { has: tab2.getByRole('heading', { name: 'Approach', exact: true }) });
  await col2.getByPlaceholder('Add an item…').fill('Buy the hut vouchers');
  await col2.getByRole('button', { name: 'Add item to Approach' }).click();
  await expect(col2.locator('.card .content')).toHaveText(['Take the bus to Bourg', 'Buy the hut vouchers']);
  await tab2.close();
  await expect(column.locator('.card .content')).toHaveText(['Take the bus to Bourg', 'Buy the hut vouchers']);
  await expect(input).toBeFocused();
  await expect(input).toHaveValue('Half typ');

  // a change through the API (a local tool)
  await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Check the glacier map' } });
  await expect(column.locator('.card .content')).toHaveText(['Take the bus to Bourg', 'Buy the hut vouchers', 'Check the glacier map']);
  await expect(input).toBeFocused();
  await expect(input).toHaveValue('Half typ');

  // messages and the timesheet follow too
  await openBoard(page, pid, 'messages');
  await settled(page);
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Panossière hut is open', body: 'From Friday.' } });
  await expect(page.locator('.post-list')).toContainText('Panossière hut is open');
  // (next week's Wednesday: this week's hours belong to the timesheet tests)
  await openBoard(page, pid, 'time');
  await page.getByRole('button', { name: 'Next week' }).click();
  await page.getByRole('group', { name: 'Rows' }).getByRole('button', { name: 'By project' }).click();
  await settled(page);
  const day = addDays(weekStart(today()), 10);
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: day, hours: '3.25' } });
  await expect(page.getByLabel(new RegExp(`^Hours for ${name}, \\w+ ${day}$`))).toHaveValue('3.25');
});
