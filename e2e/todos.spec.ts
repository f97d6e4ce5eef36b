import { expect, test, type Locator, type Page } from '@playwright/test';
import { newProject, openBoard, screen, settled, signIn } from './helpers.ts';

const column = (page: Page, name: string) => page.locator('.column', { has: page.getByRole('heading', { name, exact: true }) });
const cardTexts = (col: Locator) => col.locator('.card .content');
const card = (page: Page, text: string) => page.locator('.card', { has: page.getByRole('button', { name: text, exact: true }) });

async function addItem(page: Page, list: string, text: string) {
  await column(page, list).getByPlaceholder('Add an item…').fill(text);
  await column(page, list).getByRole('button', { name: `Add item to ${list}` }).click();
  await expect(card(page, text)).not.toHaveClass(/pending/);
}

async function drag(page: Page, from: Locator, to: Locator, where: 'top' | 'bottom' | 'left' | 'right' = 'top') {
  const sb = (await from.boundingBox())!;
  const tb = (await to.boundingBox())!;
  const target = where === 'top' ? { x: tb.width / 2, y: 4 } : where === 'bottom' ? { x: tb.width / 2, y: tb.height - 4 }
    : where === 'left' ? { x: 8, y: 10 } : { x: tb.width - 8, y: 10 };
  await from.dragTo(to, { sourcePosition: { x: sb.width - 6, y: 6 }, targetPosition: target });
  await settled(page);
}

test('todo board: lists, items, completion, drag reorder and moves survive a reload', async ({ page, request }) => {
  const name = 'Summit push';
  const pid = await newProject(request, name);
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');

  // empty state tells a new user what to do
  await expect(page.getByRole('heading', { name: 'No todo lists yet' })).toBeVisible();
  await page.getByRole('button', { name: 'Create the first list' }).click();
  await page.getByLabel('List name').fill('Launch');
  await page.getByRole('button', { name: 'Create list' }).click();
  await expect(column(page, 'Launch')).toBeVisible();
  await page.getByRole('button', { name: 'New list' }).click();
  await page.getByLabel('List name').fill('Gear');
  await page.getByRole('button', { name: 'Create list' }).click();
  await expect(column(page, 'Gear')).not.toHaveClass(/pending/);

  for (const t of ['Check the weather', 'Book the hut', 'Pack the rope']) await addItem(page, 'Launch', t);
  await addItem(page, 'Gear', 'Crampons');

  // complete one with a click, another with the keyboard (x), then reopen it
  await card(page, 'Book the hut').getByRole('checkbox').check();
  await expect(card(page, 'Book the hut')).toHaveClass(/done/);
  await card(page, 'Crampons').focus();
  await page.keyboard.press('x');
  await expect(card(page, 'Crampons')).toHaveClass(/done/);
  await page.keyboard.press('x');
  await expect(card(page, 'Crampons')).not.toHaveClass(/done/);
  await settled(page);

  // drag "Pack the rope" above "Check the weather"
  await drag(page, card(page, 'Pack the rope'), card(page, 'Check the weather'), 'top');
  await expect(cardTexts(column(page, 'Launch'))).toHaveText(['Pack the rope', 'Check the weather', 'Book the hut']);
  // drag "Check the weather" into the Gear list, below Crampons
  await drag(page, card(page, 'Check the weather'), card(page, 'Crampons'), 'bottom');
  await expect(cardTexts(column(page, 'Gear'))).toHaveText(['Crampons', 'Check the weather']);
  // keyboard reorder: Alt+ArrowUp moves it back above Crampons
  await card(page, 'Check the weather').focus();
  await page.keyboard.press('Alt+ArrowUp');
  await expect(cardTexts(column(page, 'Gear'))).toHaveText(['Check the weather', 'Crampons']);
  await settled(page);
  // drag the Gear list before Launch
  await drag(page, column(page, 'Gear').locator('.column-head'), column(page, 'Launch'), 'left');
  await expect(page.locator('.column h2')).toHaveText(['Gear', 'Launch']);

  // assign, set a due date and comment in the item panel
  await card(page, 'Pack the rope').getByRole('button', { name: 'Pack the rope' }).click();
  const panel = page.getByRole('complementary', { name: /Todo item/ });
  await panel.getByLabel('Responsible').selectOption({ label: 'Ada Admin' });
  await panel.getByLabel('Due date').fill('2030-05-01');
  await panel.getByRole('button', { name: 'Save changes' }).click();
  await expect(card(page, 'Pack the rope').locator('.party')).toHaveText('Ada Admin');
  await panel.getByLabel('Comment', { exact: true }).fill('Two 60 m ropes, please.');
  await panel.getByRole('button', { name: 'Add comment' }).click();
  // The comment shows in the list (optimistically, then saved) and the field is emptied once saved.
  await expect(panel.getByRole('region', { name: 'Comments' }).getByText('Two 60 m ropes, please.')).toBeVisible();
  await expect(panel.getByLabel('Comment', { exact: true })).toHaveValue('');
  await panel.getByRole('button', { name: 'Close the item' }).click();
  await settled(page);

  // filters
  await page.getByRole('button', { name: 'Finished' }).click();
  await expect(page.locator('.card .content')).toHaveText(['Book the hut']);
  await page.getByRole('button', { name: 'All', exact: true }).click();
  await page.getByLabel('Filter by responsible party').selectOption({ label: 'Ada Admin' });
  await expect(page.locator('.card .content')).toHaveText(['Pack the rope']);
  await page.getByLabel('Filter by responsible party').selectOption({ label: 'Anyone' });

  // after a reload the server's order and state are shown
  await page.reload();
  await expect(page.locator('.column h2')).toHaveText(['Gear', 'Launch']);
  await expect(cardTexts(column(page, 'Gear'))).toHaveText(['Check the weather', 'Crampons']);
  await expect(cardTexts(column(page, 'Launch'))).toHaveText(['Pack the rope', 'Book the hut']);
  await expect(card(page, 'Book the hut').getByRole('checkbox')).toBeChecked();
  await expect(card(page, 'Crampons').getByRole('checkbox')).not.toBeChecked();
  await expect(card(page, 'Pack the rope').locator('.party')).toHaveText('Ada Admin');
  await expect(card(page, 'Pack the rope').locator('.due')).toHaveText(`Due ${new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date('2030-05-01'))}`);
  await expect(card(page, 'Pack the rope').locator('.due time')).toHaveAttribute('datetime', '2030-05-01');
  await expect(card(page, 'Pack the rope').locator('.comments')).toHaveText('1');
  await screen(page, 'todo-board');

  // edit and delete
  await card(page, 'Crampons').getByRole('button', { name: 'Crampons' }).click();
  await panel.getByRole('button', { name: 'Delete item' }).click();
  await panel.getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(card(page, 'Crampons')).toHaveCount(0);
  await column(page, 'Launch').getByRole('button', { name: 'Edit list Launch' }).click();
  await page.getByRole('form', { name: 'Edit list Launch' }).getByLabel('Name').fill('Launch day');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(column(page, 'Launch day')).toBeVisible();
  await settled(page);
  await page.reload();
  await expect(page.locator('.column h2')).toHaveText(['Gear', 'Launch day']);
  await expect(card(page, 'Crampons')).toHaveCount(0);
});

test('a refused change rolls back and shows the server’s errors', async ({ page, request }) => {
  const pid = await newProject(request, 'Refusals');
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'todos');
  await page.getByRole('button', { name: 'New list' }).click();
  await page.getByLabel('List name').fill('x'.repeat(255));
  // the input caps names at 255; lift the cap so the server is the one that refuses
  await page.getByLabel('List name').evaluate((el: HTMLInputElement) => { el.removeAttribute('maxlength'); });
  await page.getByLabel('List name').fill('y'.repeat(256));
  await page.getByRole('button', { name: 'Create list' }).click();
  await expect(page.getByRole('alert')).toContainText('Could not create the list');
  await expect(page.getByRole('alert').locator('li')).not.toHaveCount(0);
  await expect(page.locator('.column')).toHaveCount(0);
});
