// Issue #28, "Filters in the URL": the todo board's status and responsible filters and the report's range and
// filters survive a reload and open the same view from a shared link (another browser, signing in first).
import { expect, test, type Page } from '@playwright/test';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

const cards = (page: Page) => page.locator('.card .content');

test('todo filters: status and responsible person are in the URL, kept by a reload and by a shared link', async ({ page, request, browser }) => {
  const fran = await apiCall<{ id: number }>(request, 'ada', 'GET', '/me.json'); // Ada herself: the one member of a new project
  const pid = await newProject(request, uniq('Filters'));
  const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Route' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Fix the ropes', responsible_party: String(fran.id) } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Nobody does this' } });
  const done = await apiCall<{ id: number }>(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Done already', responsible_party: String(fran.id) } });
  await apiCall(request, 'ada', 'PUT', `/todo_items/${done.id}/complete.json`);

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await expect(cards(page)).toHaveCount(3);
  await page.getByRole('button', { name: 'Pending', exact: true }).click();
  await page.getByLabel('Filter by responsible party').selectOption(String(fran.id));
  await expect(cards(page)).toHaveText(['Fix the ropes']);
  await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/todos\\?status=pending&party=${fran.id}$`));

  await page.reload();
  await expect(page.getByRole('button', { name: 'Pending', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByLabel('Filter by responsible party')).toHaveValue(String(fran.id));
  await expect(cards(page)).toHaveText(['Fix the ropes']);

  // a shared link, opened in another browser where one signs in first
  const link = new URL(page.url()).hash;
  const other = await browser.newContext();
  const p2 = await other.newPage();
  await signIn(p2, 'ada', link);
  await expect(p2.getByRole('button', { name: 'Pending', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(cards(p2)).toHaveText(['Fix the ropes']);
  await expect(p2).toHaveURL(new RegExp(`status=pending&party=${fran.id}$`));
  await other.close();

  // back to "All" and anyone: the URL has no filter left
  await page.getByRole('button', { name: 'All', exact: true }).click();
  await page.getByLabel('Filter by responsible party').selectOption('');
  await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/todos$`));
});

test('report filters: the range and the person are in the URL, kept by a reload and by a shared link', async ({ page, request, browser }) => {
  const me = await apiCall<{ id: number }>(request, 'ada', 'GET', '/me.json');
  const pid = await newProject(request, uniq('Report link'));
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: '2018-06-04', hours: '2.5', person_id: me.id, description: 'scouting' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: '2018-06-20', hours: '4.0', person_id: me.id, description: 'outside' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'report');
  const form = page.getByRole('form', { name: 'Report filters' });
  await form.getByLabel('From', { exact: true }).fill('2018-06-01');
  await form.getByLabel('To', { exact: true }).fill('2018-06-10');
  await form.getByLabel(/^Person/).selectOption(String(me.id));
  await form.getByLabel(/^Project/).selectOption(String(pid));
  await form.getByRole('button', { name: 'Run report' }).click();
  await settled(page);
  await expect(page.locator('[data-report-total]')).toHaveText('2.5 h');
  await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/report\\?from=2018-06-01&to=2018-06-10&person=${me.id}&project=${pid}$`));

  await page.reload();
  await settled(page);
  await expect(form.getByLabel('From', { exact: true })).toHaveValue('2018-06-01');
  await expect(form.getByLabel('To', { exact: true })).toHaveValue('2018-06-10');
  await expect(form.getByLabel(/^Person/)).toHaveValue(String(me.id));
  await expect(page.locator('[data-report-total]')).toHaveText('2.5 h');

  const link = new URL(page.url()).hash;
  const other = await browser.newContext();
  const p2 = await other.newPage();
  await signIn(p2, 'ada', link);
  await expect(p2.locator('[data-report-total]')).toHaveText('2.5 h');
  await expect(p2.getByRole('form', { name: 'Report filters' }).getByLabel('To', { exact: true })).toHaveValue('2018-06-10');
  await other.close();

  // a URL with nonsense in it is ignored, not sent
  await page.goto(`/#/projects/${pid}/report?from=yesterday&to=2018-06-30&person=-1`);
  await page.reload();
  await settled(page);
  await expect(form.getByLabel('From', { exact: true })).toHaveValue('');
  await expect(form.getByLabel('To', { exact: true })).toHaveValue('2018-06-30');
  await expect(form.getByLabel(/^Person/)).toHaveValue('');
});
