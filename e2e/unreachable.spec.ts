import { expect, test, type Page } from '@playwright/test';
import { addDays, today, weekStart } from '../renderer/lib/dates.ts';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

/** Cut the page off the service: every API call fails as a network error (the service itself keeps running). */
async function cut(page: Page) {
  await page.route(/\.(json|xml)(\?.*)?$/, (route) => route.abort('connectionrefused'));
}
async function restore(page: Page) {
  await page.unrouteAll({ behavior: 'ignoreErrors' });
}

test('an unreachable service keeps the last data, says so, keeps what was typed, and recovers by itself', async ({ page, request }) => {
  const monday = weekStart(today());
  const name = uniq('Piz Palü');
  const pid = await newProject(request, name);
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: monday, hours: '2.5' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Hut opening dates', body: 'The hut opens on the 1st.' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Gear' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/categories.json`, { category: { name: 'Hut news', type: 'post' } });

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'messages');
  await expect(page.getByText('Hut opening dates')).toBeVisible();
  await openBoard(page, pid, 'todos');
  await expect(page.getByRole('heading', { name: 'Gear', exact: true })).toBeVisible();
  await openBoard(page, pid, 'time');
  await page.getByRole('group', { name: 'Rows' }).getByRole('button', { name: 'By project' }).click();
  const cell = (date: string) => page.getByLabel(new RegExp(`^Hours for ${name}, \\w+ ${date}$`));
  const cellMon = cell(monday);
  await expect(cellMon).toHaveValue('2.5');
  await settled(page);

  await cut(page);
  const status = page.locator('header .sync');
  // The next week cannot be loaded: it says so, and is not "No hours this week"
  await page.getByRole('button', { name: 'Next week' }).click();
  await expect(page.getByText('Can’t reach the service, so this week is not loaded.')).toBeVisible();
  await expect(page.getByText('No hours this week')).toHaveCount(0);
  await expect(status).toHaveText('Can’t reach the service');
  await expect(page.locator('.unreachable-banner')).toBeVisible();
  // back to this week: the last data loaded is still there
  await page.getByRole('button', { name: 'Previous week' }).click();
  await expect(cellMon).toHaveValue('2.5');
  // the messages stay (no "All messages 0", no "No categories")
  await openBoard(page, pid, 'messages');
  await expect(page.getByText('Hut opening dates')).toBeVisible();
  await expect(page.getByRole('button', { name: /^Hut news/ })).toBeVisible();
  await expect(page.getByRole('button', { name: /^All messages 1$/ })).toBeVisible();
  // an item typed while unreachable is not lost
  await openBoard(page, pid, 'todos');
  const add = page.getByLabel('New item in Gear');
  await add.fill('Check the crampons');
  await page.getByRole('button', { name: 'Add item to Gear' }).click();
  await expect(page.locator('.toast.error')).toHaveCount(1);
  await expect(page.locator('.toast.error')).toContainText('Could not add the item');
  await expect(add).toHaveValue('Check the crampons');
  await page.screenshot({ path: 'test-results/screens/unreachable.png' });
  await expect(page.getByRole('heading', { name: 'Gear', exact: true })).toBeVisible();

  // Meanwhile someone else logs hours on Tuesday; the service comes back: no click needed
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: addDays(monday, 1), hours: '1' } });
  await openBoard(page, pid, 'time');
  await restore(page);
  await expect(status).toHaveText('Local only', { timeout: 15_000 });
  await expect(page.locator('.unreachable-banner')).toHaveCount(0);
  await expect(page.locator('.toast.error')).toHaveCount(0);
  await expect(cell(addDays(monday, 1))).toHaveValue('1');
  await settled(page);
});
