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
