// Issue #27, the Overview: the first page after sign-in, what happened lately across the projects the person sees,
// grouped by day then project, each event linked to its place, live, "New" since the last visit.
import { expect, test } from '@playwright/test';
import { apiCall, newProject, screen, settled, signIn, uniq } from './helpers.ts';

for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
  test(`the Overview opens after sign-in and lists a change made by another person, live; its link goes to the place (${size.width} px)`, async ({ page, request }) => {
    const tag = uniq('ov');
    const pid = await newProject(request, `Col ${tag}`);
    const fran = (await apiCall<{ id: number; user_name: string }[]>(request, 'ada', 'GET', '/people.json')).find((p) => p.user_name === 'fran')!;
    await apiCall(request, 'ada', 'POST', `/projects/${pid}/people.json`, { person: { id: fran.id } });
    const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: `Kit ${tag}` } });
    await apiCall(request, 'ada', 'POST', `/todo_lists/${list.id}/todo_items.json`, { todo_item: { content: `Stove ${tag}` } });

    await page.setViewportSize(size);
    await signIn(page, 'ada');
    await expect(page).toHaveURL(/#\/overview$/);
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
    const today = page.getByRole('region', { name: /^Today/ });
    await expect(today.getByRole('heading', { name: `Col ${tag}`, level: 3 })).toBeVisible();
    await expect(today.locator('.overview-event', { hasText: `Stove ${tag}` })).toContainText('Ada Admin added the to-do');

    // Another person posts through the API: it appears without a reload, at the top, under the project.
    const post = await apiCall<{ id: number }>(request, 'fran', 'POST', `/projects/${pid}/posts.json`, { post: { title: `Snow report ${tag}`, body: 'Fresh snow above 2,800 m.' } });
    const row = today.locator('.overview-event', { hasText: `Snow report ${tag}` }).filter({ hasText: 'posted the message' });
    await expect(row).toContainText('Fran Firm posted the message');
    await expect(page.locator('.overview-event').first()).toContainText(`Snow report ${tag}`);
    await apiCall(request, 'fran', 'POST', `/posts/${post.id}/comments.json`, { comment: { body: `Thanks ${tag}` } });
    await expect(today.locator('.overview-event', { hasText: `Thanks ${tag}` })).toContainText('Fran Firm commented on the message');
    await screen(page, `overview-${size.width}`);
    // No horizontal scrolling at any width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    // The link goes to the message, by keyboard.
    await row.getByRole('link', { name: `“Snow report ${tag}”` }).focus();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/messages/${post.id}$`));
    await expect(page.getByRole('heading', { name: new RegExp(`Snow report ${tag}`), level: 1 })).toBeVisible();
    // Back to the Overview with its key (0), then with the tab; the project chosen is kept for the boards.
    await page.keyboard.press('0');
    await expect(page).toHaveURL(/#\/overview$/);
    await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
    await page.getByRole('button', { name: 'Todos' }).click();
    await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/todos`));
    await page.getByRole('button', { name: 'Overview' }).click();
    await expect(page).toHaveURL(/#\/overview$/);
    await expect(page.getByLabel('Project')).toHaveValue(String(pid));
  });
}

test('the Overview marks what is new since the last visit, and loads older pages', async ({ page, request }) => {
  const tag = uniq('seen');
  const pid = await newProject(request, `Seen ${tag}`);
  for (let k = 0; k < 32; k++) await apiCall(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: `Note ${k} ${tag}`, body: 'x' } });
  const me = await apiCall<{ id: number }>(request, 'ada', 'GET', '/me.json');
  await signIn(page, 'ada');
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
  await expect(page.locator('.overview-event').first()).toBeVisible();
  await settled(page);
  // A first visit marks nothing; the visit is remembered (the newest event seen).
  await expect(page.locator('.overview-event.new')).toHaveCount(0);
  const seen = await page.evaluate((id) => window.localStorage.getItem(`bivouac.overview.seen.${id}`), me.id);
  expect(seen).toMatch(/^\d{4}-\d\d-\d\dT/);

  // A last visit long ago: everything is new, and says so in words.
  await page.evaluate((id) => window.localStorage.setItem(`bivouac.overview.seen.${id}`, '2000-01-01T00:00:00Z'), me.id);
  await page.reload();
  await expect(page.locator('.overview-event.new').first()).toBeVisible();
  await expect(page.locator('.overview-event.new').first().getByText('New', { exact: true })).toBeVisible();
  // A last visit after them all: nothing is.
  await page.evaluate((id) => window.localStorage.setItem(`bivouac.overview.seen.${id}`, '2999-01-01T00:00:00Z'), me.id);
  await page.reload();
  await expect(page.locator('.overview-event').first()).toBeVisible();
  await expect(page.locator('.overview-event.new')).toHaveCount(0);

  // 30 a page, and the rest of the 30th's second (a page never splits a second, D301); "Load more" brings the older ones.
  const notes = page.locator('.overview-event', { hasText: tag });
  await expect.poll(() => notes.count()).toBeGreaterThanOrEqual(30);
  if (await notes.count() < 32) await page.getByRole('button', { name: 'Load more' }).click();
  await expect(notes).toHaveCount(32);
  await expect(notes.last()).toContainText(`Note 0 ${tag}`);
});
