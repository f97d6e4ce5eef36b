// Issue #28, "Defects": one test per defect, at 1280×800 and 360×740 where the defect is about layout.
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { addDays, today, weekStart } from '../renderer/lib/dates.ts';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

const SIZES = [{ width: 1280, height: 800 }, { width: 360, height: 740 }] as const;

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync('test-results/screens', { recursive: true });
  await page.screenshot({ path: `test-results/screens/${name}.png` });
}

/** The element's box lies inside the window. */
async function inside(page: Page, sel: ReturnType<Page['locator']>): Promise<void> {
  const vp = page.viewportSize()!;
  const b = (await sel.boundingBox())!;
  expect(b.x).toBeGreaterThanOrEqual(0);
  expect(b.y).toBeGreaterThanOrEqual(0);
  expect(b.x + b.width).toBeLessThanOrEqual(vp.width);
  expect(b.y + b.height).toBeLessThanOrEqual(vp.height);
}

const card = (page: Page, text: string) => page.locator('.card', { has: page.getByRole('button', { name: text, exact: true }) });
const itemsOf = async (request: Parameters<typeof apiCall>[0], listId: number) =>
  (await apiCall<{ content: string; completed: boolean }[]>(request, 'ada', 'GET', `/todo_lists/${listId}/todo_items.json`)).map((i) => `${i.content}${i.completed ? ' ✓' : ''}`);

for (const size of SIZES) {
  test(`every dialog fits the window, close button and actions inside (${size.width} px)`, async ({ page }) => {
    await page.setViewportSize(size);
    await signIn(page, 'ada');
    await settled(page);
    const dialog = page.getByRole('dialog');
    const open: [string, () => Promise<void>][] = [
      ['help', () => page.getByRole('button', { name: 'Keyboard shortcuts' }).click()],
      ['search', () => page.getByRole('button', { name: 'Search (/)' }).click()],
      ['sync', () => page.locator('header button.sync').first().click()],
      ['settings', () => page.getByRole('button', { name: 'Settings', exact: true }).click()],
    ];
    for (const [name, how] of open) {
      await how();
      await expect(dialog).toBeVisible();
      await inside(page, dialog);
      await inside(page, dialog.getByRole('button', { name: 'Close' }));
      if (name === 'sync') await inside(page, dialog.getByRole('button', { name: 'Connect', exact: true }));
      const wide = await dialog.evaluate((d) => d.scrollWidth > d.clientWidth);
      expect(wide).toBe(false);
      await shot(page, `i28-dialog-${name}-${size.width}`);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await expect(dialog).toHaveCount(0);
    }
  });
}

test('Ctrl+Z right after completing an item with the mouse undoes it (not inside a text field)', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Undo click'));
  const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Gear' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Wax the skis' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await page.getByRole('checkbox', { name: /Wax the skis/ }).click();
  await settled(page);
  await expect.poll(() => itemsOf(request, l.id)).toEqual(['Wax the skis ✓']);
  await expect(page.getByRole('checkbox', { name: /Wax the skis/ })).toBeFocused();
  await page.keyboard.press('Control+z');
  await settled(page);
  await expect.poll(() => itemsOf(request, l.id)).toEqual(['Wax the skis']);
  await expect(page.getByRole('checkbox', { name: /Wax the skis/ })).not.toBeChecked();

  // In a text field Ctrl+Z is the field's own: the completion stays.
  await page.getByRole('checkbox', { name: /Wax the skis/ }).click();
  await settled(page);
  const field = page.getByLabel('New item in Gear');
  await field.fill('abc');
  await field.press('Control+z');
  await expect.poll(() => itemsOf(request, l.id)).toEqual(['Wax the skis ✓']);
});

test('single-key shortcuts do not fire on a focused button; a message needs a body', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Shortcuts'));
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'messages');
  await settled(page);
  const archive = page.getByRole('button', { name: 'Archive' });
  await archive.focus();
  await page.keyboard.type('notes');
  await expect(page.getByRole('form', { name: 'New message' })).toHaveCount(0);
  await page.keyboard.press('2');
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(archive).toBeFocused();
  // On the page itself (a click on the heading leaves the button) the shortcut still works.
  await page.getByRole('heading', { name: 'Messages', level: 1 }).click();
  await page.keyboard.press('n');
  const form = page.getByRole('form', { name: 'New message' });
  await expect(form).toBeVisible();
  await form.getByLabel('Title').fill('es:');
  await form.getByLabel('Title').press('Enter');
  await expect(form.getByRole('alert')).toContainText('text');
  await expect(form.getByRole('textbox', { name: 'Message', exact: true })).toBeFocused();
  const posts = await apiCall<unknown[]>(request, 'ada', 'GET', `/projects/${pid}/posts.json`);
  expect(posts).toHaveLength(0);
  await form.getByRole('textbox', { name: 'Message', exact: true }).fill('Notes of the day.');
  await form.getByRole('button', { name: 'Post message' }).click();
  await expect(page.getByRole('heading', { name: 'es:', level: 1 })).toBeVisible();
});

test('a * line right under a text line is a list; excerpts are text, not raw Textile', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Lists'));
  const post = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/posts.json`,
    { post: { title: 'Packing', body: 'Bring *these* and "the map":https://example.com/map:\n* rope\n* helmet\nThen # nothing', use_textile: true } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'messages');
  const excerpt = page.locator('.post-row .excerpt');
  await expect(excerpt).toHaveText('Bring these and the map: rope · helmet · Then # nothing');
  await page.getByText('Packing').click();
  const body = page.locator('.message-body');
  await expect(body.getByRole('listitem')).toHaveText(['rope', 'helmet']);
  await expect(body).not.toContainText('* rope');
  await expect(body.getByRole('link', { name: 'the map' })).toHaveAttribute('href', 'https://example.com/map');
  expect(post.id).toBeGreaterThan(0);
});

test('duplicate category names are refused in the UI, with a clear message', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Cats'));
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/categories.json`, { category: { name: 'Status reports', type: 'post' } });
  const other = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/categories.json`, { category: { name: 'Plans', type: 'post' } });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'messages');
  await settled(page);
  const cats = page.getByRole('navigation', { name: 'Categories' });
  await cats.getByLabel('New category name').fill(' status REPORTS ');
  await cats.getByRole('button', { name: 'Add' }).click();
  await expect(cats.getByRole('alert')).toContainText('already a category named “Status reports”');
  await expect(cats.getByLabel('New category name')).toHaveValue(' status REPORTS ');
  await settled(page);
  const names = async () => (await apiCall<{ name: string }[]>(request, 'ada', 'GET', `/projects/${pid}/categories.json`)).map((c) => c.name);
  expect(await names()).toEqual(['Plans', 'Status reports']);
  // renaming onto another's name is refused too
  await cats.getByRole('button', { name: 'Rename category Plans' }).click();
  await cats.getByLabel('New name for Plans').fill('Status Reports');
  await cats.getByRole('button', { name: 'Save' }).click();
  await expect(cats.getByRole('alert')).toContainText('already a category named “Status reports”');
  await settled(page);
  expect(await names()).toEqual(['Plans', 'Status reports']);
  expect(other.id).toBeGreaterThan(0);
});

test('after creating a list from the keyboard, focus is in its "Add an item…"', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Focus'));
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await settled(page);
  await page.locator('body').press('n');
  await expect(page.getByLabel('List name')).toBeFocused();
  await page.keyboard.type('Approach');
  await page.keyboard.press('Enter');
  await expect(page.getByLabel('New item in Approach')).toBeFocused();
  await page.keyboard.type('Find the trail');
  await page.keyboard.press('Enter');
  await expect(card(page, 'Find the trail')).toBeVisible();
});

/** Nothing in the header is cut: the tabs, the buttons and the header itself show all they hold. */
async function headerWhole(page: Page): Promise<void> {
  const cut = await page.locator('header.top').evaluate((h) => [h, ...h.querySelectorAll('nav, button, .who')]
    .filter((e) => (e as HTMLElement).offsetParent !== null && e.scrollWidth > e.clientWidth + 1 && !e.classList.contains('me'))
    .map((e) => e.textContent || e.getAttribute('aria-label')));
  expect(cut).toEqual([]);
}

for (const width of [1024, 1280]) {
  test(`the header is whole at ${width} px without sync badges`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await signIn(page, 'ada');
    await settled(page);
    await headerWhole(page);
    await inside(page, page.getByRole('button', { name: 'Sign out' }));
  });
}

test('the header fits 1280 px (and 1024 px) with the conflicts and rejected badges: Sign out is whole', async ({ page }) => {
  await page.route('**/sync/status', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({
    state: 'ok', lastSuccessAt: new Date().toISOString(), pending: 3, rejected: 2, conflicts: 12, progress: null,
    remote: { url: 'https://team.example.com', user: 'ada', kind: 'bivouac' }, error: null }) }));
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, 'ada');
  await expect(page.getByRole('button', { name: '12 conflicts' })).toBeVisible();
  await settled(page);
  await shot(page, 'i28-header-1280');
  await inside(page, page.getByRole('button', { name: 'Sign out' }));
  const over = await page.locator('header.top').evaluate((h) => h.scrollWidth - h.clientWidth);
  expect(over).toBeLessThanOrEqual(0);
  const signOut = await page.getByRole('button', { name: 'Sign out' }).evaluate((b) => b.scrollWidth <= b.clientWidth);
  expect(signOut).toBe(true);
  await headerWhole(page);
  // narrower: the badges give way to their total on the sync button
  await page.setViewportSize({ width: 1024, height: 700 });
  await inside(page, page.getByRole('button', { name: 'Sign out' }));
  await headerWhole(page);
  await expect(page.locator('header .sync-issues')).toHaveText('⚠ 14');
  await shot(page, 'i28-header-1024');
});

test('connect errors are said in words: a refused password, nothing listening', async ({ page, baseURL }) => {
  await signIn(page, 'ada');
  await page.locator('header button.sync').first().click();
  const panel = page.getByRole('dialog', { name: 'Sync' });
  await panel.getByLabel('Server URL').fill('http://127.0.0.1:9');
  await panel.getByLabel('User name').fill('ada');
  await panel.getByLabel('Password').fill('whatever');
  await panel.getByRole('button', { name: 'Connect', exact: true }).click();
  const alert = panel.getByRole('alert');
  await expect(alert).toContainText('Bivouac could not reach http://127.0.0.1:9: nothing answers there');
  await expect(alert).not.toContainText('ECONNREFUSED');
  await expect(alert).not.toContainText('unreachable');
  await panel.getByLabel('Server URL').fill(baseURL!);
  await panel.getByLabel('Password').fill('not the password');
  await panel.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(alert).toContainText('did not accept this user name and password');
  await expect(alert).not.toContainText('401');
  await shot(page, 'i28-connect-error');
});

test('timesheet cells have distinct names across projects; the message field is named "Message"', async ({ page, request }) => {
  const me = await apiCall<{ id: number }>(request, 'ada', 'GET', '/me.json');
  const monday = addDays(weekStart(today()), 21);
  const names = [uniq('North face'), uniq('South ridge')];
  for (const n of names) {
    const pid = await newProject(request, n);
    await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: monday, hours: '1.0', person_id: me.id, description: 'general' } });
  }
  const pid = await newProject(request, uniq('Timesheet labels'));
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'time');
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Next week' }).click();
  await settled(page);
  await expect(page.locator('.week-grid tbody tr')).toHaveCount(2);
  const labels = await page.locator('.week-grid tbody input').evaluateAll((xs) => xs.map((x) => x.getAttribute('aria-label')));
  expect(labels).toHaveLength(14);
  expect(new Set(labels).size).toBe(14);
  for (const n of names) await expect(page.getByRole('textbox', { name: `Hours for General (no todo item), ${n}, Mon ${monday}` })).toBeVisible();

  await openBoard(page, pid, 'messages');
  await page.getByRole('button', { name: 'New message' }).click();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message', exact: true })).toHaveAccessibleDescription(/lines starting with \* or #/);
});

for (const size of SIZES) {
  test(`the report chart is legible (${size.width} px): axis text at least 10 px, labels apart`, async ({ page, request }) => {
    await page.setViewportSize(size);
    const me = await apiCall<{ id: number }>(request, 'ada', 'GET', '/me.json');
    const pid = await newProject(request, uniq('Chart'));
    for (let d = 1; d <= 30; d += 3) {
      await apiCall(request, 'ada', 'POST', `/projects/${pid}/time_entries.json`, { time_entry: { date: `2019-03-${String(d).padStart(2, '0')}`, hours: String(d % 7 + 0.5), person_id: me.id } });
    }
    await signIn(page, 'ada');
    await page.getByLabel('Project').selectOption(String(pid));
    await openBoard(page, pid, 'report');
    const form = page.getByRole('form', { name: 'Report filters' });
    await form.getByLabel('From', { exact: true }).fill('2019-03-01');
    await form.getByLabel('To', { exact: true }).fill('2019-03-31');
    await form.getByLabel(/^Project/).selectOption(String(pid));
    await form.getByRole('button', { name: 'Run report' }).click();
    await settled(page);
    const chart = page.locator('figure.chart');
    await expect(chart).toBeVisible();
    await chart.scrollIntoViewIfNeeded();
    await shot(page, `i28-chart-${size.width}`);
    const boxes = await chart.locator('svg text').evaluateAll((ts) => ts.map((t) => { const r = t.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height, t: t.textContent }; }));
    expect(boxes.length).toBeGreaterThan(3);
    for (const b of boxes) expect(b.h, `height of "${b.t}"`).toBeGreaterThanOrEqual(10);
    // labels on the same line never overlap
    const rows = new Map<number, typeof boxes>();
    for (const b of boxes) rows.set(Math.round(b.y), [...(rows.get(Math.round(b.y)) ?? []), b]);
    for (const row of rows.values()) {
      const xs = row.sort((a, b) => a.x - b.x);
      for (let i = 1; i < xs.length; i++) expect(xs[i].x, `"${xs[i].t}" after "${xs[i - 1].t}"`).toBeGreaterThanOrEqual(xs[i - 1].x + xs[i - 1].w);
    }
    const svg = (await chart.locator('svg').boundingBox())!;
    expect(svg.x + svg.width).toBeLessThanOrEqual(size.width);
  });
}
