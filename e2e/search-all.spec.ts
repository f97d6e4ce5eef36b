// Issue #28, "Search across all my projects": hits from every project the person sees, each with its kind
// and project; opening one switches to its project; the kind badge ("MESSAGE") stays inside its column.
import { expect, test } from '@playwright/test';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
  test(`search finds todos and messages of all my projects, with their project (${size.width} px)`, async ({ page, request }) => {
    const word = `Rappel${Date.now().toString(36).slice(-5)}`;
    const [a, b] = [uniq('North col'), uniq('South col')];
    const pa = await newProject(request, a);
    const pb = await newProject(request, b);
    await apiCall(request, 'ada', 'POST', `/projects/${pa}/posts.json`, { post: { title: `${word} briefing with a rather long title that has to wrap on a phone`, body: 'Meet at the hut.' } });
    const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pb}/todo_lists.json`, { todo_list: { name: 'Anchors' } });
    await apiCall(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: `Check the ${word} anchor` } });
    await page.setViewportSize(size);
    await signIn(page, 'ada');
    await page.getByLabel('Project').selectOption(String(pa));
    await openBoard(page, pa, 'messages');
    await settled(page);
    await page.getByRole('heading', { name: 'Messages', level: 1 }).click();
    await page.keyboard.press('/');
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.getByLabel('Search messages and todos').fill(word.toLowerCase());
    const options = dialog.getByRole('option');
    await expect(options).toHaveCount(2);
    const todo = options.filter({ hasText: 'anchor' });
    await expect(todo.locator('.kind')).toHaveText('Todo');
    await expect(todo.locator('.hit-project')).toHaveText(b);
    const msg = options.filter({ hasText: 'briefing' });
    await expect(msg.locator('.hit-project')).toHaveText(a);
    // the kind badge stays inside its box, left of the title
    const kind = msg.locator('.kind');
    expect(await kind.evaluate((k) => k.scrollWidth <= k.clientWidth)).toBe(true);
    const [kb, tb] = [(await kind.boundingBox())!, (await msg.locator('.hit-title').boundingBox())!];
    expect(kb.x + kb.width).toBeLessThanOrEqual(tb.x);
    await page.screenshot({ path: `test-results/screens/i28-search-all-${size.width}.png` });
    // only this project
    await dialog.getByRole('button', { name: 'This project' }).click();
    await expect(options).toHaveCount(1);
    await expect(options.first()).toContainText('briefing');
    await dialog.getByRole('button', { name: 'All my projects' }).click();
    await expect(options).toHaveCount(2);
    // opening the other project's todo switches to that project and opens the item
    await todo.click();
    await expect(page).toHaveURL(new RegExp(`#/projects/${pb}/todos`));
    await expect(page.getByLabel('Project')).toHaveValue(String(pb));
    await expect(page.getByRole('complementary').getByRole('heading', { name: `Check the ${word} anchor` })).toBeVisible();
  });
}
