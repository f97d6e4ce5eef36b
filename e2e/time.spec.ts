import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { parseCsv } from '../renderer/lib/csv.ts';
import { weekStart, addDays, today } from '../renderer/lib/dates.ts';
import { apiCall, newProject, openBoard, screen, settled, signIn } from './helpers.ts';

test('timesheet week grid and report with CSV export', async ({ page, request }) => {
  // a project whose name needs CSV quoting, with a todo item to log against
  const name = 'Zoë’s "Summit", Ridge';
  const pid = await newProject(request, name);
  const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Route' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Scout the couloir' } });
  const monday = weekStart(today());
  const days = Array.from({ length: 7 }, (_, i) => addDays(monday, i));
  // an entry with a description that needs quoting, made through the API
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, {
    time_entry: { date: days[2], hours: '0.25', description: 'Called the guide, said "maybe"\nthen rebooked' },
  });

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'time');
  await expect(page.getByRole('table', { name: /Hours of Ada Admin/ })).toBeVisible();

  await page.getByRole('button', { name: 'Add row' }).click();
  const form = page.getByRole('form', { name: 'Add a timesheet row' });
  await form.getByLabel('Project').selectOption(String(pid));
  await form.getByLabel('Todo item').selectOption({ label: 'Scout the couloir' });
  await form.getByRole('button', { name: 'Add row' }).click();

  const cell = (row: string, date: string) => page.getByLabel(new RegExp(`^Hours for ${row.replace(/[()]/g, '\\$&')}, \\w+ ${date}$`));
  await cell('Scout the couloir', days[0]).fill('1.5');
  await cell('Scout the couloir', days[0]).press('Enter');
  await cell('Scout the couloir', days[1]).fill('2:30');
  await cell('Scout the couloir', days[1]).press('Tab');
  await settled(page);
  await expect(page.locator('[data-week-total]')).toHaveText('4.25');
  // edit an existing entry inline
  await cell('General (no todo item)', days[2]).fill('0.75');
  await cell('General (no todo item)', days[2]).press('Enter');
  await settled(page);
  await expect(page.locator('[data-week-total]')).toHaveText('4.75');

  await page.reload();
  await expect(cell('Scout the couloir', days[0])).toHaveValue('1.5');
  await expect(cell('Scout the couloir', days[1])).toHaveValue('2.5');
  await expect(cell('General (no todo item)', days[2])).toHaveValue('0.75');
  await expect(page.locator(`[data-day-total="${days[1]}"]`)).toHaveText('2.5');
  await expect(page.locator('[data-week-total]')).toHaveText('4.75');
  await screen(page, 'timesheet');

  // the report for this week and this project
  await openBoard(page, pid, 'report');
  const filters = page.getByRole('form', { name: 'Report filters' });
  await filters.getByLabel('From', { exact: true }).fill(days[0]);
  await filters.getByLabel('To', { exact: true }).fill(days[6]);
  await filters.getByLabel('Project').selectOption(String(pid));
  await filters.getByLabel('Person').selectOption({ label: 'Ada Admin' });
  await filters.getByRole('button', { name: 'Run report' }).click();
  await expect(page.locator('table.entries tbody tr')).toHaveCount(3);
  await expect(page.locator('[data-report-total]')).toHaveText('4.75 h');
  await expect(page.locator('.chart rect.bar')).toHaveCount(3);
  await expect(page.getByRole('table', { name: 'Per person' })).toContainText('Ada Admin');
  await screen(page, 'report');

  const [download] = await Promise.all([page.waitForEvent('download'), filters.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toBe(`bivouac-time-${days[0]}-to-${days[6]}.csv`);
  const text = readFileSync((await download.path())!, 'utf8');
  expect(text.charCodeAt(0)).toBe(0xfeff);
  const rows = parseCsv(text);
  expect(rows[0]).toEqual(['Date', 'Person', 'Project', 'Todo item', 'Description', 'Hours']);
  expect(rows.slice(1).sort((a, b) => a[0].localeCompare(b[0]))).toEqual([
    [days[0], 'Ada Admin', name, 'Scout the couloir', '', '1.5'],
    [days[1], 'Ada Admin', name, 'Scout the couloir', '', '2.5'],
    [days[2], 'Ada Admin', name, '', 'Called the guide, said "maybe"\nthen rebooked', '0.75'],
  ]);
  expect(text).toContain(`"${name.replace(/"/g, '""')}"`);

  // the report filters narrow: another person has no hours here
  await filters.getByLabel('Person').selectOption({ label: 'Fran Firm' });
  await filters.getByRole('button', { name: 'Run report' }).click();
  await expect(page.getByText('No time entries match these filters.')).toBeVisible();
  await settled(page);
});
