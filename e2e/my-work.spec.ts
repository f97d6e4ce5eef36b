// Issue #28, "My work": one view of the open items assigned to me (or my company) across all projects,
// overdue first, then due soon, then the rest, with quick complete (and undo).
import { expect, test } from '@playwright/test';
import { apiCall, newProject, screen, settled, signIn, uniq } from './helpers.ts';

const day = (offset: number): string => {
  const d = new Date();
  d.setDate(d.getDate() + offset);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
  test(`My work lists my items of every project, overdue, due soon, the rest; one click completes (${size.width} px)`, async ({ page, request }) => {
    const me = await apiCall<{ id: number; company_id: number }>(request, 'ada', 'GET', '/me.json');
    const tag = uniq('w');
    const p1 = await newProject(request, `Hut ${tag}`);
    const p2 = await newProject(request, `Ridge ${tag}`);
    const l1 = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${p1}/todo_lists.json`, { todo_list: { name: 'Supplies' } });
    const l2 = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${p2}/todo_lists.json`, { todo_list: { name: 'Route' } });
    const add = ({ id: l }: { id: number }, content: string, due?: string, party = String(me.id)) =>
      apiCall(request, 'ada', 'POST', `/todo_lists/${l}/todo_items.json`, { todo_item: { content: `${content} ${tag}`, responsible_party: party, ...(due ? { due_at: due } : {}) } });
    await add(l2, 'Later stove', day(30));
    await add(l1, 'Undated rope');
    await add(l2, 'Soon permit', day(2));
    await add(l1, 'Late gas', day(-3));
    await add(l1, 'Company radio', day(1), `c${me.company_id}`);
    await add(l1, 'Nobody map', day(-1), '');

    await page.setViewportSize(size);
    await signIn(page, 'ada');
    await page.getByRole('button', { name: 'My work' }).click();
    await expect(page.getByRole('heading', { name: 'My work', level: 1 })).toBeVisible();
    await expect(page).toHaveURL(/\/mine/);
    const mine = page.locator('.work-item').filter({ hasText: tag });
    // overdue, then due soon, then later and undated; across both projects; not the company's nor nobody's
    await expect(mine.locator('.content')).toHaveText([`Late gas ${tag}`, `Soon permit ${tag}`, `Later stove ${tag}`, `Undated rope ${tag}`]);
    await expect(page.getByRole('region', { name: /Overdue/ }).getByText(`Late gas ${tag}`)).toBeVisible();
    await expect(page.getByRole('region', { name: /Due in the next/ }).getByText(`Soon permit ${tag}`)).toBeVisible();
    await expect(mine.filter({ hasText: 'Soon permit' }).getByRole('button', { name: `Ridge ${tag}` })).toBeVisible();
    await screen(page, `my-work-${size.width}`);

    // quick complete, then Ctrl+Z from the checkbox brings it back
    // A click, not check(): the completed item leaves My work at once (the change stream answers a write
    // within a second now), so there is no checked box left for check() to verify.
    await page.getByRole('checkbox', { name: new RegExp(`Complete “Late gas ${tag}”`) }).click();
    await expect(page.getByRole('status').or(page.getByRole('alert')).getByText(`Completed “Late gas ${tag}”`).first()).toBeVisible();
    await expect(mine.filter({ hasText: 'Late gas' })).toHaveCount(0);
    const done = await apiCall<{ completed: boolean }[]>(request, 'ada', 'GET', `/todo_lists/${l1.id}/todo_items.json`);
    expect(done.filter((i) => i.completed)).toHaveLength(1);
    await page.keyboard.press('Control+z');
    await expect(mine.filter({ hasText: 'Late gas' })).toHaveCount(1);
    await settled(page);

    // my company's items
    await page.getByRole('group', { name: 'Assigned to' }).getByRole('button').nth(1).click();
    await expect(mine.locator('.content')).toHaveText([`Company radio ${tag}`]);

    // survives a reload; a project link opens that project's todos
    await page.reload();
    await expect(page.getByRole('heading', { name: 'My work', level: 1 })).toBeVisible();
    await expect(mine.first()).toBeVisible();
    await mine.filter({ hasText: 'Soon permit' }).getByRole('button', { name: `Ridge ${tag}` }).click();
    await expect(page).toHaveURL(new RegExp(`#/projects/${p2}/todos`));
    await expect(page.getByText(`Soon permit ${tag}`)).toBeVisible();
    // the page never scrolls sideways
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  });
}
