// Issue #28, "Due dates in the quick add": "Call the hut tomorrow" or "… fri" sets the due date; what was
// understood shows before saving, as a chip the user can remove; the locale's weekday names count too.
import { expect, test } from '@playwright/test';
import { apiCall, newProject, openBoard, screen, settled, signIn, uniq } from './helpers.ts';

const ymd = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const inDays = (n: number) => { const d = new Date(); d.setDate(d.getDate() + n); return ymd(d); };
const nextDow = (dow: number) => { const d = new Date(); return inDays((dow - d.getDay() + 7) % 7); };

interface Item { content: string; due_at?: string }

for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
  test(`the quick add reads a due date at the end of the text, shows it, and it can be removed (${size.width} px)`, async ({ page, request }) => {
    const pid = await newProject(request, uniq('Due words'));
    const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Hut' } });
    await page.setViewportSize(size);
    await signIn(page, 'ada');
    await openBoard(page, pid, 'todos');
    const field = page.getByLabel('New item in Hut');
    const chip = page.locator('.add-item .chip');

    await field.fill('Call the hut tomorrow');
    await expect(chip).toBeVisible();
    await expect(chip).toHaveAttribute('data-due', inDays(1));
    await expect(chip).toContainText('“tomorrow”');
    await screen(page, `due-chip-${size.width}`);
    await field.press('Enter');
    await expect(page.getByRole('button', { name: 'Call the hut', exact: true })).toBeVisible();
    await expect(chip).toHaveCount(0);

    await field.fill('Buy gas fri');
    await expect(chip).toHaveAttribute('data-due', nextDow(5));
    await field.press('Enter');
    await expect(page.getByRole('button', { name: 'Buy gas', exact: true })).toBeVisible();

    // removed: the words stay in the text, no due date
    await field.fill('Friday meeting notes for sat');
    await expect(chip).toHaveAttribute('data-due', nextDow(6));
    await page.getByRole('button', { name: /Remove the due date/ }).click();
    await expect(chip).toHaveCount(0);
    await expect(field).toBeFocused();
    await field.press('Enter');
    await expect(page.getByRole('button', { name: 'Friday meeting notes for sat', exact: true })).toBeVisible();

    // nothing but a date word is the item's text
    await field.fill('Tomorrow');
    await expect(chip).toHaveCount(0);

    await settled(page);
    const items = await apiCall<Item[]>(request, 'ada', 'GET', `/todo_lists/${l.id}/todo_items.json`);
    const by = (c: string) => items.find((i) => i.content === c);
    expect(by('Call the hut')?.due_at?.slice(0, 10)).toBe(inDays(1));
    expect(by('Buy gas')?.due_at?.slice(0, 10)).toBe(nextDow(5));
    expect(by('Friday meeting notes for sat')?.due_at ?? null).toBeNull();
  });
}

test.describe('in a French locale', () => {
  test.use({ locale: 'fr-FR' });
  test('the weekday names of the user’s language set the due date', async ({ page, request }) => {
    const pid = await newProject(request, uniq('Jours'));
    const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Refuge' } });
    await signIn(page, 'ada');
    await openBoard(page, pid, 'todos');
    const field = page.getByLabel('New item in Refuge');
    await field.fill('Appeler le refuge mercredi');
    await expect(page.locator('.add-item .chip')).toHaveAttribute('data-due', nextDow(3));
    await field.press('Enter');
    await expect(page.getByRole('button', { name: 'Appeler le refuge', exact: true })).toBeVisible();
    await settled(page);
    const items = await apiCall<Item[]>(request, 'ada', 'GET', `/todo_lists/${l.id}/todo_items.json`);
    expect(items.find((i) => i.content === 'Appeler le refuge')?.due_at?.slice(0, 10)).toBe(nextDow(3));
  });
});
