import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { addDays, today, weekStart } from '../renderer/lib/dates.ts';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

/** Nothing on the page is wider than the window (no sideways scrolling). */
async function noSideways(page: Page) {
  const r = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth,
    main: document.querySelector('main')?.scrollWidth ?? 0 }));
  expect(r.doc).toBeLessThanOrEqual(r.win);
  expect(r.main).toBeLessThanOrEqual(r.win);
}

test('every board is usable 360 px wide: one column, nothing off-screen', async ({ page, request }) => {
  mkdirSync('docs/screens', { recursive: true });
  const pid = await newProject(request, uniq('Aletsch'));
  for (const name of ['Before', 'During']) {
    const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name } });
    await apiCall(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: `${name}: check the weather` } });
  }
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Glacier briefing', body: 'Ropes on.' } });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/');
  await noSideways(page);
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeInViewport();
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await settled(page);
  await noSideways(page);
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeInViewport();
  const cols = page.locator('.column');
  const [a, b] = [(await cols.nth(0).boundingBox())!, (await cols.nth(1).boundingBox())!];
  expect(b.x).toBe(a.x); // one column: lists stack
  expect(b.y).toBeGreaterThan(a.y);
  await page.screenshot({ path: 'docs/screens/narrow-todos.png' });

  await openBoard(page, pid, 'messages');
  await expect(page.getByText('Glacier briefing')).toBeVisible();
  await settled(page);
  await noSideways(page);

  await openBoard(page, pid, 'time');
  // next week: this week's hours belong to the timesheet tests
  await page.getByRole('button', { name: 'Next week' }).click();
  await settled(page);
  await page.getByRole('button', { name: 'Add row' }).click();
  await page.getByRole('form', { name: 'Add a timesheet row' }).getByRole('button', { name: 'Add row' }).click();
  const monday = addDays(weekStart(today()), 7);
  const cell = page.locator('.week-grid tbody tr').filter({ has: page.locator('input:focus') }).locator('input').nth(2);
  await expect(cell).toBeInViewport();
  await cell.fill('1.5');
  await cell.press('Tab');
  await settled(page);
  await noSideways(page);
  await expect(page.locator(`[data-day-total="${addDays(monday, 2)}"]`)).toContainText('1.5');
  await page.screenshot({ path: 'docs/screens/narrow-timesheet.png' });

  await openBoard(page, pid, 'report');
  await settled(page);
  await noSideways(page);
});

test('1024 px: the timesheet day headers are whole, on one line', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 700 });
  await signIn(page, 'ada');
  const pid = Number(/projects\/(\d+)/.exec(page.url())?.[1] ?? (await page.getByLabel('Project').inputValue()));
  await openBoard(page, pid, 'time');
  await settled(page);
  await noSideways(page);
  const heads = page.locator('.week-grid thead th');
  await expect(heads).toHaveCount(9);
  const fits = await heads.evaluateAll((ths) => ths.map((th) => th.scrollWidth <= th.clientWidth && th.getClientRects().length === 1));
  expect(fits).toEqual(fits.map(() => true));
  const heights = await heads.evaluateAll((ths) => ths.map((th) => (th as HTMLElement).offsetHeight));
  expect(new Set(heights).size).toBe(1);
});
