import { expect, test } from '@playwright/test';
import { addDays, today, weekStart } from '../renderer/lib/dates.ts';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

interface Entry { id: number; date: string; hours: number; project_id: number; todo_item_id: number | null }

test('timesheet: Add row puts focus in the new row, and typing never edits another row', async ({ page, request }) => {
  const monday = weekStart(today());
  const days = Array.from({ length: 7 }, (_, i) => addDays(monday, i));
  // The project being worked on (its rows sort first) and another one that sorts last, with hours on Monday and Friday.
  const here = await newProject(request, uniq('Aiguille'));
  const other = await newProject(request, uniq('Zz Zermatt hut'));
  await apiCall(request, 'ada', 'POST', `/projects/${other}/time_entries.json`, { time_entry: { date: days[0], hours: '2', description: 'hut booking' } });
  await apiCall(request, 'ada', 'POST', `/projects/${other}/time_entries.json`, { time_entry: { date: days[4], hours: '1.25', description: 'weather' } });
  const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${here}/todo_lists.json`, { todo_list: { name: 'Approach' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Fix the ropes' } });

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(here));
  await openBoard(page, here, 'time');
  await expect(page.getByRole('table', { name: /Hours of Ada Admin/ })).toBeVisible();
  await settled(page);

  await page.getByRole('button', { name: 'Add row' }).click();
  const form = page.getByRole('form', { name: 'Add a timesheet row' });
  await form.getByLabel('Todo item').selectOption({ label: 'Fix the ropes' });
  await form.getByRole('button', { name: 'Add row' }).click();

  // Focus is on Monday of the row just added, not on the last row shown.
  const mine = page.getByLabel(new RegExp(`^Hours for Fix the ropes, \\w+ ${days[0]}$`));
  await expect(mine).toBeFocused();
  await page.keyboard.type('3');
  await page.keyboard.press('Enter');
  await settled(page);
  await expect(mine).toHaveValue('3');

  const otherEntries = await apiCall<Entry[]>(request, 'ada', 'GET', `/projects/${other}/time_entries.json`);
  expect(otherEntries.map((e) => [e.date, Number(e.hours)]).sort()).toEqual([[days[0], 2], [days[4], 1.25]]);
  const hereEntries = await apiCall<Entry[]>(request, 'ada', 'GET', `/projects/${here}/time_entries.json`);
  expect(hereEntries.map((e) => [e.date, Number(e.hours), e.todo_item_id !== null])).toEqual([[days[0], 3, true]]);

  // Adding a row that already exists focuses that row too (never another one).
  await page.getByRole('button', { name: 'Add row' }).click();
  await form.getByLabel('Todo item').selectOption({ label: 'Fix the ropes' });
  await form.getByRole('button', { name: 'Add row' }).click();
  await expect(mine).toBeFocused();
});

test('timesheet: a cell refuses words, minutes past 59 and a day over 24 h, on the cell, with no toast', async ({ page, request }) => {
  const monday = weekStart(today());
  const days = Array.from({ length: 7 }, (_, i) => addDays(monday, i));
  const here = await newProject(request, uniq('Dent Blanche'));
  const other = await newProject(request, uniq('Dom hut'));
  // 20 h already logged on Sunday of this week in another project (no other test logs hours on Sundays)
  await apiCall(request, 'ada', 'POST', `/projects/${other}/time_entries.json`, { time_entry: { date: days[6], hours: '20', description: 'storm watch' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(here));
  await openBoard(page, here, 'time');
  await page.getByRole('group', { name: 'Rows' }).getByRole('button', { name: 'By project' }).click();
  await page.getByRole('button', { name: 'Add row' }).click();
  await page.getByRole('form', { name: 'Add a timesheet row' }).getByRole('button', { name: 'Add row' }).click();
  const rowName = await page.locator('.week-grid tbody tr').filter({ has: page.locator('input:focus') }).locator('th .row-main').textContent();
  const mon = page.getByLabel(`Hours for ${rowName}, Mon ${days[0]}`);
  const sun = page.getByLabel(`Hours for ${rowName}, Sun ${days[6]}`);
  await expect(mon).toBeFocused();

  await page.keyboard.type('abc');
  await page.keyboard.press('Enter');
  await expect(mon).toHaveAttribute('aria-invalid', 'true');
  await expect(mon).toBeFocused();
  await expect(page.locator('.cell-error')).toHaveText('Not a number of hours: write 1.5, 0.25 or 1:30.');
  await expect(mon).toHaveValue('abc'); // what was typed stays, to be fixed
  await mon.press('Tab');
  await expect(page.locator('.cell-error')).toHaveCount(1);

  await mon.fill('1:75');
  await mon.press('Enter');
  await expect(page.locator('.cell-error')).toHaveText('Minutes go from 00 to 59: write 1:45, or 1.75.');
  await mon.fill('25');
  await mon.press('Enter');
  await expect(page.locator('.cell-error')).toContainText('A day holds at most 24 h');
  await mon.press('Escape');
  await expect(mon).toHaveValue('');
  await expect(page.locator('.cell-error')).toHaveCount(0);

  // Sunday holds 20 h in the other project: this cell can take 4 h, not 5
  await sun.fill('5');
  await sun.press('Enter');
  await expect(page.locator('.cell-error')).toContainText('20 h are already logged that day, so this cell can take at most 4 h');
  await expect(page.locator('.toast')).toHaveCount(0);
  await sun.fill('4');
  await sun.press('Enter');
  await settled(page);
  await expect(page.locator('.cell-error')).toHaveCount(0);
  await expect(page.locator(`[data-day-total="${days[6]}"]`)).toHaveText('24');
  const mine = await apiCall<Entry[]>(request, 'ada', 'GET', `/projects/${here}/time_entries.json`);
  expect(mine.map((e) => [e.date, Number(e.hours)])).toEqual([[days[6], 4]]);
  // the API refuses what the cell refuses
  const r = await request.post(`/projects/${here}/time_entries.json`, {
    headers: { Authorization: `Basic ${Buffer.from('ada:ada-pass-1').toString('base64')}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    data: JSON.stringify({ time_entry: { date: days[2], hours: '1:75' } }),
  });
  expect(r.status()).toBe(422);
});
