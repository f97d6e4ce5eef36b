// Issue #28, "A timer": start on a todo item or a project, the running timer shows in the header and survives
// a reload, and on stop becomes a time entry, rounded as the user chooses and editable before it is saved.
import { expect, test, type Page } from '@playwright/test';
import { apiCall, newProject, openBoard, screen, settled, signIn, uniq } from './helpers.ts';

interface Entry { hours: number; description: string; todo_item_id: number | null; date: string }

/** Nothing in the header is cut or outside the window. */
async function headerWhole(page: Page): Promise<void> {
  const cut = await page.locator('header.top').evaluate((h) => [h, ...h.querySelectorAll('nav, button, .header-timer')]
    .filter((e) => (e as HTMLElement).offsetParent !== null && (e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > innerWidth + 0.5) && e.tagName !== 'NAV' && !e.closest('nav'))
    .map((e) => e.textContent || e.getAttribute('aria-label')));
  expect(cut).toEqual([]);
}

for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
  test(`a timer on a todo item runs in the header, survives a reload, and becomes an edited, rounded entry (${size.width} px)`, async ({ page, request }) => {
    const pid = await newProject(request, uniq('Timer'));
    const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Hut' } });
    const item = await apiCall<{ id: number }>(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Fix the stove' } });
    await page.clock.install();
    await page.setViewportSize(size);
    await signIn(page, 'ada');
    await openBoard(page, pid, 'todos');
    await page.getByRole('button', { name: 'Fix the stove', exact: true }).click();
    await page.getByRole('button', { name: 'Start a timer on “Fix the stove”' }).click();
    const stop = page.getByRole('button', { name: 'Stop the timer on “Fix the stove”' });
    await expect(stop).toBeVisible();
    await page.clock.runFor(17 * 60_000 + 3000);
    await expect(page.locator('header .header-timer .elapsed')).toHaveText('0:17:03');
    await headerWhole(page);
    await screen(page, `timer-header-${size.width}`);

    // a reload (a restart of the app reads the same storage) finds it running, time still counting
    await page.reload();
    await expect(stop).toBeVisible();
    await page.clock.runFor(60_000);
    await expect(page.locator('header .header-timer .elapsed')).toHaveText(/^0:18:\d\d$/);

    await stop.click();
    const dialog = page.getByRole('dialog', { name: 'Save the time' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Hours')).toHaveValue('0.5'); // 18 min, up to 15 min (the default)
    await dialog.getByRole('radio', { name: 'Up to 6 min' }).check();
    await expect(dialog.getByLabel('Hours')).toHaveValue('0.4'); // 18 min and some seconds: a started 6 min counts
    await dialog.getByRole('radio', { name: 'Exact' }).check();
    await expect(dialog.getByLabel('Hours')).toHaveValue('0.3');
    await dialog.getByLabel('Hours').fill('0.35');
    await dialog.getByLabel('Description').fill('New gasket');
    await screen(page, `timer-dialog-${size.width}`);
    await dialog.getByRole('button', { name: 'Save the entry' }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.locator('header .header-timer')).toHaveCount(0);
    await settled(page);
    const entries = await apiCall<Entry[]>(request, 'ada', 'GET', `/projects/${pid}/time_entries.json`);
    expect(entries.map((e) => ({ hours: Number(e.hours), description: e.description, todo_item_id: e.todo_item_id }))).toEqual([
      { hours: 0.35, description: 'New gasket', todo_item_id: item.id },
    ]);
    // and the timer is gone for good
    await page.reload();
    await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible();
    await expect(page.locator('header .header-timer')).toHaveCount(0);
  });
}

test('a timer on a project (from the timesheet); Discard saves nothing', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Timer project'));
  await signIn(page, 'ada');
  await openBoard(page, pid, 'time');
  await page.getByRole('button', { name: /^Start a timer on/ }).click();
  await expect(page.locator('header .header-timer')).toBeVisible();
  await page.getByRole('button', { name: 'Stop timer' }).click();
  const dialog = page.getByRole('dialog', { name: 'Save the time' });
  await expect(dialog.getByLabel('Hours')).toHaveValue('0.25'); // a started step counts
  await page.keyboard.press('Escape'); // keeps running
  await expect(page.locator('header .header-timer')).toBeVisible();
  await page.getByRole('button', { name: /^Stop the timer on/ }).click();
  await dialog.getByRole('button', { name: 'Discard' }).click();
  await expect(page.locator('header .header-timer')).toHaveCount(0);
  const entries = await apiCall<Entry[]>(request, 'ada', 'GET', `/projects/${pid}/time_entries.json`);
  expect(entries).toEqual([]);
});
