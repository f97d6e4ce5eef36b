// Issue #28, "Tests": axe (axe-core through @axe-core/playwright) with 0 violations on every board, in both
// themes, at 1280×800 and 360×740: sign-in, Todos (and an item's panel), Messages (list and a message),
// Timesheet, Time report, My work, the Overview, the running timer, and the Search, Settings, Keyboard shortcuts, Team server
// and Save the time dialogs.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { apiCall, openBoard, seedBoards, settled, uniq, walkBoards } from './helpers.ts';
import { USERS } from './helpers.ts';

/** axe's violations on the page as it is, one line each (rule, impact, the first nodes). */
async function violations(page: Page): Promise<string[]> {
  await settled(page);
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join(' ').trim()}`).join(' | ')}`);
}

test('axe itself finds a violation (an image without a text alternative)', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByLabel('User name')).toBeVisible();
  await page.evaluate(() => { const i = document.createElement('img'); i.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw='; document.body.append(i); });
  expect((await violations(page)).join('\n')).toContain('image-alt');
});

for (const scheme of ['light', 'dark'] as const) {
  for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
    test(`axe: no violation on any board, ${scheme} theme, ${size.width} px`, async ({ page, request }) => {
      test.setTimeout(180_000); // fifteen axe runs on a shared machine
      const pid = await seedBoards(request, uniq(`Axe ${scheme}`));
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      const bad: string[] = [];
      const check = async (where: string) => {
        bad.push(...(await violations(page)).map((x) => `${where}: ${x}`));
        await page.screenshot({ path: `test-results/screens/axe-${scheme}-${size.width}-${where.replace(/ /g, '-')}.png` });
      };
      await page.goto('/');
      await expect(page.getByLabel('User name')).toBeVisible();
      await check('sign in');
      await page.getByLabel('User name').fill(USERS.ada.user);
      await page.getByLabel('Password').fill(USERS.ada.password);
      // The Overview (issue #27) is the first page, its events marked new (a last visit long ago).
      const me = await apiCall<{ id: number }>(request, 'ada', 'GET', '/me.json');
      await page.evaluate((id) => window.localStorage.setItem(`bivouac.overview.seen.${id}`, '2000-01-01T00:00:00Z'), me.id);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
      await expect(page.locator('.overview-event.new', { hasText: 'Weather window' }).first()).toBeVisible();
      await check('overview');
      await page.getByLabel('Project').selectOption(String(pid));
      await walkBoards(page, pid, check, async () => {
        await page.getByLabel('New item in Approach').fill('Call the hut tomorrow'); // the due date chip
        await expect(page.locator('.add-item .chip')).toBeVisible();
        await check('todos');
        await page.getByLabel('New item in Approach').fill('');
      });
      await page.getByRole('button', { name: 'My work' }).click();
      await expect(page.getByText('Late permit').first()).toBeVisible();
      await check('my work');
      for (const [button, dialog] of [['Settings', 'Settings'], ['Search (/)', 'Search'], ['Keyboard shortcuts', 'Keyboard shortcuts']] as const) {
        await page.getByRole('button', { name: button, exact: true }).click();
        await expect(page.getByRole('dialog', { name: dialog })).toBeVisible();
        if (dialog === 'Search') {
          await page.getByRole('dialog', { name: 'Search' }).getByRole('combobox').fill('weather');
          await expect(page.getByRole('dialog', { name: 'Search' }).getByText('Weather window').first()).toBeVisible();
        }
        await check(`${dialog} dialog`);
        await page.keyboard.press('Escape');
        await expect(page.getByRole('dialog')).toHaveCount(0);
      }
      await page.getByRole('button', { name: /^Sync:/ }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await check('sync dialog');
      await page.keyboard.press('Escape');
      await openBoard(page, pid, 'time');
      await page.getByRole('button', { name: /^Start a timer on/ }).click();
      await expect(page.locator('header .header-timer')).toBeVisible();
      await check('timer running');
      await page.getByRole('button', { name: /^Stop the timer on/ }).click();
      await expect(page.getByRole('dialog', { name: 'Save the time' })).toBeVisible();
      await check('timer dialog');
      expect(bad).toEqual([]);
    });
  }
}
