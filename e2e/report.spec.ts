import { expect, test } from '@playwright/test';
import { today, weekStart } from '../renderer/lib/dates.ts';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

test('report: a backwards range is an error, a year is drawn by week, totals per todo item and client company', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Breithorn'));
  const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Survey' } });
  const item = await apiCall<{ id: number }>(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: 'Map the crevasses' } });
  // a day of this year outside this week (this week's hours belong to the timesheet tests)
  const y = today().slice(0, 4);
  const day = weekStart(today()) > `${y}-01-08` ? `${y}-01-02` : `${y}-12-30`;
  await apiCall(request, 'ada', 'POST', `/todo_items/${item.id}/time_entries.json`, { time_entry: { date: day, hours: '2' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'report');
  await settled(page);
  const filters = page.getByRole('form', { name: 'Report filters' });

  let asked = 0;
  page.on('request', (r) => { if (r.url().includes('/time_entries/report') || r.url().includes('time/report')) asked++; });
  await filters.getByLabel('From', { exact: true }).fill('2026-03-10');
  await filters.getByLabel('To', { exact: true }).fill('2026-03-01');
  await expect(filters.getByRole('alert')).toContainText('“From”');
  await expect(filters.getByRole('alert')).toContainText('is after “To”');
  await expect(filters.getByLabel('From', { exact: true })).toHaveAttribute('aria-invalid', 'true');
  await expect(filters.getByRole('button', { name: 'Run report' })).toBeDisabled();
  expect(asked).toBe(0);

  await filters.getByRole('button', { name: 'This year' }).click();
  await filters.getByLabel('Project').selectOption(String(pid));
  await filters.getByRole('button', { name: 'Run report' }).click();
  await settled(page);
  await expect(page.locator('.chart figcaption')).toHaveText('Hours per week');
  const bars = await page.locator('.chart rect.bar').count();
  expect(bars).toBe(1);
  await expect(page.getByRole('table', { name: 'Per todo item' })).toContainText('Map the crevasses');
  await expect(page.getByRole('table', { name: 'Per client company' })).toContainText('2');
});
