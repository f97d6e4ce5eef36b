// Issue #27, the Milestones board: late first and marked, upcoming with the days left, completed last;
// create, comment, complete, reopen, delete with undo; the lists and messages linked to a milestone, and
// picking a milestone in the list and message editors; live updates; 360 px.
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { addDays, today } from '../renderer/lib/dates.ts';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

interface Ms { id: number; title: string; completed: boolean; deadline: string; responsible_party_name?: string }
const card = (page: Page, title: string) => page.locator('.milestone', { has: page.getByRole('heading', { name: title, exact: true }) });
const group = (page: Page, name: 'Late' | 'Upcoming' | 'Completed') => page.getByRole('list', { name: `${name} milestones` }).locator('.milestone h3');
const milestones = async (request: Parameters<typeof apiCall>[0], pid: number) =>
  (await apiCall<Ms[]>(request, 'ada', 'GET', `/projects/${pid}/milestones/list.json`)).map((m) => `${m.title}${m.completed ? ' ✓' : ''}`);

test('milestones: create, comment, complete, reopen, delete with undo; late marked first; linked list and message shown', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Eiger'));
  const soon = addDays(today(), 10);
  const later = addDays(today(), 30);
  const [permit] = await apiCall<Ms[]>(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Permit filed', deadline: '2020-01-15' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Summit window', deadline: later } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Paperwork', milestone_id: permit.id } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Permit office hours', body: 'Mornings.', milestone_id: permit.id } });

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await page.getByRole('navigation', { name: 'Boards' }).getByRole('button', { name: 'Milestones' }).click();
  await expect(page).toHaveURL(new RegExp(`#/projects/${pid}/milestones`));
  await expect(page.getByRole('heading', { name: 'Milestones', level: 1 })).toBeVisible();

  // late first, marked in words; its linked list and message are listed under it
  await expect(group(page, 'Late')).toHaveText(['Permit filed']);
  const late = card(page, 'Permit filed');
  await expect(late.locator('.late-mark')).toHaveText(/Late/);
  await expect(late.locator('[data-due-words]')).toHaveText(/\d+ days late/);
  await expect(late.getByRole('list', { name: 'Linked to Permit filed' }).getByRole('link')).toHaveText(['Paperwork', 'Permit office hours']);

  // create one (n opens the form), responsible: a person
  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('n');
  const form = page.getByRole('form', { name: 'New milestone' });
  await expect(form.getByLabel('Title')).toBeFocused();
  await form.getByLabel('Title').fill('Base camp set up');
  await form.getByLabel('Due date').fill(soon);
  await form.getByRole('combobox', { name: 'Responsible' }).selectOption({ label: 'Ada Admin' });
  await form.getByRole('button', { name: 'Create milestone' }).click();
  await settled(page);
  await expect(group(page, 'Upcoming')).toHaveText(['Base camp set up', 'Summit window']);
  await expect(card(page, 'Base camp set up').locator('[data-due-words]')).toHaveText('10 days left');
  await expect(card(page, 'Base camp set up').locator('.party')).toHaveText('Ada Admin');
  await expect(page.getByRole('checkbox', { name: 'Complete “Base camp set up”' })).toBeFocused();
  await expect.poll(() => milestones(request, pid)).toEqual(['Permit filed', 'Base camp set up', 'Summit window']);

  // comment on it
  await card(page, 'Base camp set up').getByRole('button', { name: /Comments on Base camp set up/ }).click();
  const comments = page.getByRole('region', { name: 'Comments on Base camp set up' });
  await comments.getByLabel('Comment', { exact: true }).fill('Tents are booked.');
  await comments.getByRole('button', { name: 'Add comment' }).click();
  await settled(page);
  await expect(comments.locator('.comment-list li')).toContainText(['Tents are booked.']);
  await expect(card(page, 'Base camp set up').getByRole('button', { name: /Comments on Base camp set up/ })).toHaveText(/Comments \(1\)/);
  const ms = await apiCall<Ms[]>(request, 'ada', 'GET', `/projects/${pid}/milestones/list.json`);
  const base = ms.find((m) => m.title === 'Base camp set up')!;
  expect((await apiCall<{ body: string }[]>(request, 'ada', 'GET', `/milestones/${base.id}/comments.json`)).map((c) => c.body)).toEqual(['Tents are booked.']);

  // edit it: a new title
  await card(page, 'Base camp set up').getByRole('button', { name: 'Edit milestone Base camp set up' }).click();
  const edit = page.getByRole('form', { name: 'Edit milestone Base camp set up' });
  await edit.getByLabel('Title').fill('Base camp up');
  await edit.getByRole('button', { name: 'Save' }).click();
  await settled(page);
  await expect(group(page, 'Upcoming')).toHaveText(['Base camp up', 'Summit window']);

  // complete it: it goes to Completed; Undo from the toast reopens it
  await page.getByRole('checkbox', { name: 'Complete “Base camp up”' }).click(); // the card moves to another group: a click, not check()
  await settled(page);
  await expect(group(page, 'Completed')).toHaveText(['Base camp up']);
  await expect.poll(() => milestones(request, pid)).toContain('Base camp up ✓');
  await page.locator('.toast').getByRole('button', { name: 'Undo' }).click();
  await settled(page);
  await expect(group(page, 'Upcoming')).toHaveText(['Base camp up', 'Summit window']);
  await expect.poll(() => milestones(request, pid)).toContain('Base camp up');
  // and complete again, then reopen with its checkbox
  await page.getByRole('checkbox', { name: 'Complete “Base camp up”' }).click(); // the card moves to another group: a click, not check()
  await settled(page);
  await page.getByRole('checkbox', { name: 'Reopen “Base camp up”' }).click();
  await settled(page);
  await expect(group(page, 'Upcoming')).toContainText(['Base camp up']);
  await expect.poll(() => milestones(request, pid)).toContain('Base camp up');

  // delete the late one, then Ctrl+Z: it comes back, its list and message linked again
  await card(page, 'Permit filed').getByRole('button', { name: 'Delete milestone Permit filed' }).click();
  await settled(page);
  await expect(card(page, 'Permit filed')).toHaveCount(0);
  await expect.poll(() => milestones(request, pid)).not.toContain('Permit filed');
  await page.locator('body').click({ position: { x: 5, y: 400 } });
  await page.keyboard.press('Control+z');
  await settled(page);
  await expect(group(page, 'Late')).toHaveText(['Permit filed']);
  await expect(card(page, 'Permit filed').getByRole('list', { name: 'Linked to Permit filed' }).getByRole('link')).toHaveText(['Paperwork', 'Permit office hours']);
  const back = (await apiCall<Ms[]>(request, 'ada', 'GET', `/projects/${pid}/milestones/list.json`)).find((m) => m.title === 'Permit filed')!;
  const lists = await apiCall<{ name: string; milestone_id: number | null }[]>(request, 'ada', 'GET', `/projects/${pid}/todo_lists.json`);
  expect(lists.find((l) => l.name === 'Paperwork')!.milestone_id).toBe(back.id);

  // a linked message opens from the board
  await card(page, 'Permit filed').getByRole('link', { name: 'Permit office hours' }).click();
  await expect(page.getByRole('heading', { name: 'Permit office hours', level: 1 })).toBeVisible();
});

test('milestones: picked in the list and message editors; another person’s change shows live', async ({ page, request }) => {
  const pid = await newProject(request, uniq('Jungfrau'));
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Hut booked', deadline: addDays(today(), 5) } });
  const list = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Gear' } });
  const post = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid}/posts.json`, { post: { title: 'Hut phone number', body: 'Call them.' } });

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  // a list's editor
  await openBoard(page, pid, 'todos');
  await page.getByRole('button', { name: 'Edit list Gear' }).click();
  await page.getByRole('form', { name: 'Edit list Gear' }).getByRole('combobox', { name: 'Milestone' }).selectOption({ index: 1 }); // the project's one milestone, after "No milestone"
  await page.getByRole('form', { name: 'Edit list Gear' }).getByRole('button', { name: 'Save' }).click();
  await settled(page);
  await expect.poll(async () => (await apiCall<{ milestone_id: number | null }>(request, 'ada', 'GET', `/todo_lists/${list.id}.json`)).milestone_id).toBeGreaterThan(0);
  await expect(page.locator('.column[data-list-id="' + list.id + '"] .milestone-of')).toHaveText(/Milestone: Hut booked, due/);
  // a message's editor
  await openBoard(page, pid, 'messages');
  await page.getByText('Hut phone number').click();
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByRole('form', { name: 'Edit message' }).getByRole('combobox', { name: 'Milestone' }).selectOption({ index: 1 }); // the project's one milestone, after "No milestone"
  await page.getByRole('button', { name: 'Save message' }).click();
  await settled(page);
  await expect.poll(async () => (await apiCall<{ milestone_id: number }>(request, 'ada', 'GET', `/posts/${post.id}.json`)).milestone_id).toBeGreaterThan(0);

  await openBoard(page, pid, 'milestones');
  await expect(card(page, 'Hut booked').getByRole('list', { name: 'Linked to Hut booked' }).getByRole('link')).toHaveText(['Gear', 'Hut phone number']);
  // someone else (the API) adds a late one: it shows without a reload, first
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Insurance paid', deadline: addDays(today(), -2) } });
  await expect(group(page, 'Late')).toHaveText(['Insurance paid']);
  await expect(card(page, 'Insurance paid').locator('[data-due-words]')).toHaveText('2 days late');
});

test('milestones at 360 px: one column, nothing off-screen; an empty board says what to do', async ({ page, request }) => {
  mkdirSync('docs/screens', { recursive: true });
  const empty = await newProject(request, uniq('Empty'));
  const pid = await newProject(request, uniq('Aletsch'));
  const [m] = await apiCall<Ms[]>(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'A very long milestone title that has to wrap on a narrow phone screen', deadline: '2021-03-01' } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Glacier crossing', deadline: addDays(today(), 3), responsible_party: 'c' + (await apiCall<{ id: number }[]>(request, 'ada', 'GET', `/projects/${pid}/companies.json`))[0].id } });
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/todo_lists.json`, { todo_list: { name: 'Ropes and crampons', milestone_id: m.id } });
  await page.setViewportSize({ width: 360, height: 740 });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(empty));
  await openBoard(page, empty, 'milestones');
  await expect(page.getByRole('heading', { name: 'No milestones yet' })).toBeVisible();
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'milestones');
  await expect(group(page, 'Upcoming')).toHaveText(['Glacier crossing']);
  await settled(page);
  const r = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth }));
  expect(r.doc).toBeLessThanOrEqual(r.win);
  for (const c of await page.locator('.milestone').all()) {
    const b = (await c.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.x + b.width).toBeLessThanOrEqual(360);
  }
  await page.screenshot({ path: 'docs/screens/narrow-milestones.png' });
  await page.setViewportSize({ width: 1280, height: 800 });
  await settled(page);
  await page.screenshot({ path: 'docs/screens/milestones.png' });
});

test('moving a due date offers to move the later milestones (off by default, in words); checked, they move', async ({ page, request }) => {
  mkdirSync('test-results/screens', { recursive: true });
  const pid = await newProject(request, uniq('Bernina'));
  const base = addDays(today(), 10);
  const make = async (title: string, deadline: string) =>
    (await apiCall<Ms[]>(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title, deadline } }))[0];
  await make('Permit filed', base);
  await make('Base camp set up', addDays(base, 7));
  await make('Summit window', addDays(base, 14));
  const done = await make('Gear bought', addDays(base, 3));
  await apiCall(request, 'ada', 'POST', `/milestones/complete/${done.id}`);
  const dates = async () => Object.fromEntries((await apiCall<Ms[]>(request, 'ada', 'GET', `/projects/${pid}/milestones/list.json`)).map((m) => [m.title, m.deadline]));

  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'milestones');
  // Without the box: only this one moves.
  await card(page, 'Permit filed').getByRole('button', { name: 'Edit milestone Permit filed' }).click();
  let form = page.getByRole('form', { name: 'Edit milestone Permit filed' });
  await expect(form.getByText(/Also move/)).toHaveCount(0);
  await form.getByLabel('Due date').fill(addDays(base, 1));
  const box = form.getByRole('checkbox', { name: 'Also move the 2 later milestones by 1 day' });
  await expect(box).not.toBeChecked();
  await form.getByRole('button', { name: 'Save' }).click();
  await settled(page);
  await expect.poll(dates).toEqual({ 'Permit filed': addDays(base, 1), 'Base camp set up': addDays(base, 7), 'Summit window': addDays(base, 14), 'Gear bought': addDays(base, 3) });

  // With it: the later open ones move by as many days, the completed one stays.
  await card(page, 'Permit filed').getByRole('button', { name: 'Edit milestone Permit filed' }).click();
  form = page.getByRole('form', { name: 'Edit milestone Permit filed' });
  await form.getByLabel('Due date').fill(addDays(base, 6));
  await form.getByRole('checkbox', { name: 'Also move the 2 later milestones by 5 days' }).check();
  await expect(form.getByRole('checkbox', { name: /Keep them off weekends/ })).not.toBeChecked();
  await page.screenshot({ path: 'test-results/screens/milestone-move-later.png' });
  await page.setViewportSize({ width: 360, height: 740 });
  await settled(page);
  await form.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/screens/milestone-move-later-360.png' });
  const r = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, win: window.innerWidth }));
  expect(r.doc).toBeLessThanOrEqual(r.win);
  await page.setViewportSize({ width: 1280, height: 800 });
  await form.getByRole('button', { name: 'Save' }).click();
  await settled(page);
  await expect.poll(dates).toEqual({ 'Permit filed': addDays(base, 6), 'Base camp set up': addDays(base, 12), 'Summit window': addDays(base, 19), 'Gear bought': addDays(base, 3) });
  await expect(group(page, 'Upcoming')).toHaveText(['Permit filed', 'Base camp set up', 'Summit window']);
  await expect(card(page, 'Summit window').locator('time')).toHaveAttribute('datetime', addDays(base, 19));
});
