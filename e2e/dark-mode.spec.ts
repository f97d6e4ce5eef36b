// Issue #28, "Dark mode": the theme follows the system (prefers-color-scheme), a choice of light / dark /
// system in the settings, and text contrast AA on every board in both themes. axe-core is not in
// node_modules, so the contrast is measured here (WCAG 2 relative luminance, 4.5:1, 3:1 for large text).
import { expect, test, type Page } from '@playwright/test';
import { seedBoards, settled, signIn, uniq, walkBoards } from './helpers.ts';

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);
/** Relative luminance of the page's background (0 black … 1 white). */
const pageLuminance = (page: Page) => page.evaluate(() => {
  const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/\d+(\.\d+)?/g)!.map(Number);
  const f = (v: number) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
});

/** Every visible text (and form field) whose contrast with what is behind it is below AA. */
async function lowContrast(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    type C = [number, number, number, number];
    const parse = (c: string): C | null => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return null;
      const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p[3] ?? 1];
    };
    const lum = ([r, g, b]: C) => {
      const f = (v: number) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const over = (top: C, under: C, alpha = top[3]): C => [0, 1, 2].map((i) => top[i] * alpha + under[i] * (1 - alpha)).concat(1) as C;
    /** What is painted behind the element: its own and its ancestors' backgrounds, blended; null for images. */
    const behind = (el: Element): C | null => {
      const layers: C[] = [];
      for (let e: Element | null = el; e; e = e.parentElement) {
        const cs = getComputedStyle(e);
        if (cs.backgroundImage !== 'none') return null;
        const c = parse(cs.backgroundColor);
        if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
      }
      let acc: C = [255, 255, 255, 1];
      for (let i = layers.length - 1; i >= 0; i--) acc = over(layers[i], acc);
      return acc;
    };
    const out: string[] = [];
    const all = [...document.querySelectorAll<HTMLElement>('body *')];
    for (const el of all) {
      const field = el.matches('select, textarea, input:not([type=checkbox]):not([type=radio]):not([type=hidden])');
      const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent!.trim() !== '');
      if (!field && !hasText) continue;
      if (el.closest('svg, [aria-hidden="true"], :disabled, [aria-disabled="true"], .sr-only')) continue;
      if (field && !(el as HTMLInputElement).value) continue;
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      if (r.width <= 1 || r.height <= 1 || cs.visibility === 'hidden' || r.bottom < 0 || r.top > innerHeight) continue;
      let opacity = 1;
      for (let e: Element | null = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      if (opacity === 0) continue;
      const bg = behind(el);
      const fg0 = parse(cs.color);
      if (!bg || !fg0) continue;
      const fg = over(fg0, bg, fg0[3] * opacity);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      const size = parseFloat(cs.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) {
        const text = field ? `[${el.tagName.toLowerCase()}] ${(el as HTMLInputElement).value}` : el.textContent!.trim().slice(0, 40);
        out.push(`${text} (${el.className || el.tagName}): ${ratio.toFixed(2)} ${cs.color} on rgb(${bg.slice(0, 3).map(Math.round).join(', ')})`);
      }
    }
    return out;
  });
}

test('the theme follows the system, and the settings choose light, dark or system (kept after a reload)', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await signIn(page, 'ada');
  expect(await theme(page)).toBe('dark');
  expect(await pageLuminance(page)).toBeLessThan(0.05);
  await page.emulateMedia({ colorScheme: 'light' });
  await expect.poll(() => theme(page)).toBe('light');
  expect(await pageLuminance(page)).toBeGreaterThan(0.8);

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog.getByRole('radio', { name: /Same as the system/ })).toBeChecked();
  await dialog.getByRole('radio', { name: 'Dark', exact: true }).check();
  await expect.poll(() => theme(page)).toBe('dark');
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Boards' })).toBeVisible();
  expect(await theme(page)).toBe('dark'); // the system says light; the choice wins
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await dialog.getByRole('radio', { name: /Same as the system/ }).check();
  await expect.poll(() => theme(page)).toBe('light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect.poll(() => theme(page)).toBe('dark');
  await dialog.getByRole('radio', { name: 'Light', exact: true }).check();
  await expect.poll(() => theme(page)).toBe('light');
  await page.keyboard.press('Escape');
});

for (const scheme of ['light', 'dark'] as const) {
  for (const size of [{ width: 1280, height: 800 }, { width: 360, height: 740 }]) {
    test(`contrast AA on every board, ${scheme} theme, ${size.width} px`, async ({ page, request }) => {
      const pid = await seedBoards(request, uniq(`Contrast ${scheme}`));
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme });
      await signIn(page, 'ada');
      await page.getByLabel('Project').selectOption(String(pid));
      expect(await theme(page)).toBe(scheme);
      // the measure itself finds a grey on grey
      await page.evaluate(() => { const p = document.createElement('p'); p.id = 'probe'; p.textContent = 'grey on grey'; p.style.cssText = 'color:#777;background:#888;position:fixed;top:60px;left:10px'; document.body.append(p); });
      expect((await lowContrast(page)).join('\n')).toContain('grey on grey');
      await page.evaluate(() => document.getElementById('probe')?.remove());
      const bad: string[] = [];
      const check = async (where: string) => {
        await settled(page);
        bad.push(...(await lowContrast(page)).map((x) => `${where}: ${x}`));
        await page.screenshot({ path: `test-results/screens/i28-theme-${scheme}-${size.width}-${where.replace(/ /g, '-')}.png` });
      };
      await walkBoards(page, pid, check);
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await check('settings');
      expect(bad).toEqual([]);
    });
  }
}
