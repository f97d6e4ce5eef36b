// A team forms from the UI alone (issue #27): an administrator adds a teammate without a password (an
// invitation link), a project, and the teammate as its member; the teammate opens the link, chooses a
// password, signs in and sees exactly that project, has no People area, and changes their password in
// My account. At the desktop size and at 360 px.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { apiCall, screen, settled, signIn, uniq } from './helpers.ts';

/** axe's violations on the page as it is (as e2e/axe.spec.ts checks every board). */
async function violations(page: Page): Promise<string[]> {
  await settled(page);
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

const SIZES = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 360, height: 740 } },
] as const;

async function fresh(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const ctx = await browser.newContext({ viewport });
  return ctx.newPage();
}

for (const size of SIZES) {
  test(`a team forms from the UI: invitation, project, member, first sign-in, My account (${size.name})`, async ({ browser }) => {
    const tag = uniq('x').split(' ')[1] + size.name[0];
    const user = `nia${tag}`;
    const projectName = `Team project ${tag}`;
    const admin = await fresh(browser, size.viewport);
    await signIn(admin, 'ada');
    await expect(admin.getByRole('button', { name: 'My account: Ada Admin' })).toBeInViewport({ ratio: 1 });
    await screen(admin, `team-header-${size.name}`);

    // The People area: add a teammate without a password → an invitation link.
    await admin.getByRole('button', { name: 'People', exact: true }).click();
    const dialog = admin.getByRole('dialog', { name: 'People' });
    await expect(dialog.getByRole('heading', { name: /^Summit Firm Ltd/ })).toBeVisible();
    await dialog.getByRole('button', { name: 'Add a person' }).click();
    await expect(dialog.getByLabel('First name')).toBeFocused();
    await dialog.getByLabel('First name').fill('Nia');
    await dialog.getByLabel('Last name').fill(`New ${tag}`);
    await dialog.getByLabel('User name', { exact: true }).fill(user);
    await dialog.getByLabel('E-mail').fill(`${user}@summit.example`);
    // A password the policy refuses: the server's words, in the form.
    await dialog.getByLabel(/^Password/).fill(`${user}`);
    await dialog.getByRole('button', { name: 'Add person' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Password cannot be the user name');
    await dialog.getByLabel(/^Password/).fill('');
    await dialog.getByRole('button', { name: 'Add and get an invitation link' }).click();
    const link = dialog.getByLabel(/^Invitation link for Nia/);
    await expect(link).toBeFocused();
    const url = await link.inputValue();
    expect(url).toMatch(new RegExp(`#/invite/[\\w-]{43}/${user}$`));
    await screen(admin, `team-invitation-${size.name}`);
    expect(await violations(admin)).toEqual([]);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expect(dialog.getByText(`New ${tag}`)).toBeVisible();

    // Projects (also from the project menu): a new project, the teammate as its member.
    await dialog.getByRole('button', { name: 'Projects' }).click();
    const pdialog = admin.getByRole('dialog', { name: 'Projects' });
    await pdialog.getByLabel('New project').fill(projectName);
    await pdialog.getByRole('button', { name: 'Create project' }).click();
    await expect(pdialog.getByLabel('Add a member')).toBeFocused();
    await expect(pdialog.getByRole('combobox', { name: 'Project to edit' }).locator('option:checked')).toHaveText(projectName);
    await pdialog.getByLabel('Add a member').selectOption({ label: `Nia New ${tag}` });
    await pdialog.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(pdialog.getByRole('listitem').filter({ hasText: `Nia New ${tag}` })).toContainText('sees private records');
    await screen(admin, `team-members-${size.name}`);
    expect(await violations(admin)).toEqual([]);
    await admin.keyboard.press('Escape');
    await expect(pdialog).toHaveCount(0);
    await expect(admin.getByLabel('Project', { exact: true })).toContainText(projectName);

    // The teammate opens the link, chooses a password, is signed in and sees exactly that project.
    const mate = await fresh(browser, size.viewport);
    await mate.goto(url.replace(/^https?:\/\/[^/]+/, ''));
    await expect(mate.getByRole('heading', { name: 'Welcome to your team on Bivouac' })).toBeVisible();
    await expect(mate.getByLabel('User name', { exact: true })).toHaveValue(user);
    await mate.getByLabel('Password', { exact: true }).fill('first-rope-2027');
    await mate.getByLabel('Password again').fill('first-rope-2027');
    await screen(mate, `team-accept-${size.name}`);
    expect(await violations(mate)).toEqual([]);
    await mate.getByRole('button', { name: 'Set my password and sign in' }).click();
    await expect(mate.getByRole('navigation', { name: 'Boards' })).toBeVisible();
    const options = mate.getByLabel('Project', { exact: true }).locator('option');
    await expect(options).toHaveText([projectName]);
    // Not an administrator: no People area, no project management in the menu.
    await expect(mate.getByRole('button', { name: 'People', exact: true })).toHaveCount(0);

    // The link is single use.
    const again = await fresh(browser, size.viewport);
    await again.goto(url.replace(/^https?:\/\/[^/]+/, ''));
    await again.getByLabel('Password', { exact: true }).fill('second-rope-2027');
    await again.getByLabel('Password again').fill('second-rope-2027');
    await again.getByRole('button', { name: 'Set my password and sign in' }).click();
    await expect(again.getByRole('alert')).toContainText('This invitation is not valid: ask an administrator for a new one');

    // My account: change the password; the new one signs in, the old one no longer does.
    await mate.getByRole('button', { name: /^My account/ }).click();
    const acct = mate.getByRole('dialog', { name: 'My account' });
    await expect(acct.getByLabel('First name')).toHaveValue('Nia');
    await acct.getByLabel('New password', { exact: true }).fill('second-rope-2027');
    await acct.getByLabel('New password again').fill('second-rope-2027');
    await acct.getByRole('button', { name: 'Change password' }).click();
    await expect(acct.getByRole('status')).toContainText('Your password is changed');
    await screen(mate, `team-account-${size.name}`);
    expect(await violations(mate)).toEqual([]);
    const later = await fresh(browser, size.viewport);
    await later.goto('/');
    await later.getByLabel('User name', { exact: true }).fill(user);
    await later.getByLabel('Password', { exact: true }).fill('first-rope-2027');
    await later.getByRole('button', { name: 'Sign in' }).click();
    await expect(later.getByRole('alert')).toContainText('Wrong user name, password or token.');
    await later.getByLabel('Password', { exact: true }).fill('second-rope-2027');
    await later.getByRole('button', { name: 'Sign in' }).click();
    await expect(later.getByRole('navigation', { name: 'Boards' })).toBeVisible();

    // The project menu: rename, then archive (it moves to the menu's Archived group).
    await admin.getByLabel('Project', { exact: true }).selectOption({ label: 'Manage projects…' });
    const menu = admin.getByRole('dialog', { name: 'Projects' });
    await menu.getByRole('combobox', { name: 'Project to edit' }).selectOption({ label: projectName });
    await menu.getByLabel('Name', { exact: true }).fill(`${projectName} (renamed)`);
    await menu.getByRole('button', { name: 'Rename' }).click();
    await expect(menu.getByRole('combobox', { name: 'Project to edit' }).locator('option:checked')).toHaveText(`${projectName} (renamed)`);
    await menu.getByRole('button', { name: 'Archive' }).click();
    await expect(menu.getByText('Status: Archived')).toBeVisible();
    await expect(admin.locator('header optgroup[label="Archived"] option', { hasText: `${projectName} (renamed)` })).toHaveCount(1);

    // Deactivate the teammate (confirmed): they can no longer sign in.
    await menu.getByRole('button', { name: 'People', exact: true }).click();
    const people = admin.getByRole('dialog', { name: 'People' });
    await people.getByRole('button', { name: `Deactivate Nia New ${tag}` }).click();
    const confirm = people.getByRole('group', { name: `Deactivate Nia New ${tag}?` });
    await expect(confirm.getByRole('button', { name: 'Deactivate' })).toBeFocused();
    await confirm.getByRole('button', { name: 'Deactivate' }).click();
    await expect(people.getByRole('listitem').filter({ hasText: `Nia New ${tag}` })).toContainText('deactivated');
    await admin.keyboard.press('Escape');
    const gone = await fresh(browser, size.viewport);
    await gone.goto('/');
    await gone.getByLabel('User name').fill(user);
    await gone.getByLabel('Password', { exact: true }).fill('second-rope-2027');
    await gone.getByRole('button', { name: 'Sign in' }).click();
    await expect(gone.getByRole('alert')).toContainText('Wrong user name, password or token.');

    // The teammate's open page learns it at its next request (the change stream's, at the latest): signed out.
    await expect(mate.getByRole('button', { name: 'Sign in' })).toBeVisible({ timeout: 20_000 });
    // Nothing spills sideways at this size.
    for (const [who, p] of [['admin', admin], ['teammate', mate]] as const) {
      const wide = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(wide, `${who}: the page is wider than the window`).toBeLessThanOrEqual(0);
    }
    await expect(admin.getByRole('button', { name: /^My account/ })).toBeInViewport({ ratio: 1 });
  });
}

// What #27 still lacked (D291, D292): a company edited from the UI, a new empty company that says what to do,
// and a deactivated person still marked after a reload. At the desktop size and at 360 px.
for (const size of SIZES) {
  test(`companies are edited, an empty one says what to do, a deactivated person stays marked after a reload (${size.name})`, async ({ browser, request }) => {
    const tag = uniq('x').split(' ')[1] + size.name[0];
    const admin = await fresh(browser, size.viewport);
    await signIn(admin, 'ada');
    await admin.getByRole('button', { name: 'People', exact: true }).click();
    const dialog = admin.getByRole('dialog', { name: 'People' });

    // A new client company: empty, it offers to add its first person with that company chosen.
    await dialog.getByLabel('New client company').fill(`Club ${tag}`);
    await dialog.getByRole('button', { name: 'Add company' }).click();
    const group = dialog.getByRole('region', { name: `Club ${tag}` });
    await expect(group).toContainText(`Nobody at Club ${tag} yet`);

    // Rename it: a taken name is refused in words, then a new one is saved; focus returns to Edit.
    await group.getByRole('button', { name: `Edit company Club ${tag}` }).click();
    const name = dialog.getByLabel('Company name');
    await expect(name).toBeFocused();
    await expect(dialog.getByText('a client company never sees them')).toBeVisible();
    await name.fill('Summit Firm Ltd');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Name has already been taken');
    await name.fill(`Guides ${tag}`);
    await screen(admin, `team-company-edit-${size.name}`);
    expect(await violations(admin)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    const renamed = dialog.getByRole('region', { name: `Guides ${tag}` });
    await expect(renamed.getByRole('button', { name: `Edit company Guides ${tag}` })).toBeFocused();
    const companies = await apiCall<{ name: string }[]>(request, 'ada', 'GET', '/companies.json');
    expect(companies.map((c) => c.name)).toContain(`Guides ${tag}`);

    // Its first person, from the empty state: the company is already chosen; with a password, no link.
    await renamed.getByRole('button', { name: `Add a person to Guides ${tag}` }).click();
    await expect(dialog.getByRole('combobox', { name: 'Company', exact: true }).locator('option:checked')).toHaveText(`Guides ${tag} (client)`);
    await expect(dialog.getByLabel('First name')).toBeFocused();
    await dialog.getByLabel('First name').fill('Gus');
    await dialog.getByLabel('Last name').fill(`Guide ${tag}`);
    await dialog.getByLabel('User name', { exact: true }).fill(`gus${tag}`);
    await dialog.getByLabel('E-mail').fill(`gus${tag}@guides.example`);
    await dialog.getByLabel(/^Password/).fill('guide-rope-2027');
    await dialog.getByRole('button', { name: 'Add person' }).click();
    const row = renamed.getByRole('listitem').filter({ hasText: `Gus Guide ${tag}` });
    await expect(row).toBeVisible();

    // Deactivate him; after a reload he is still marked, last, with no actions.
    await row.getByRole('button', { name: `Deactivate Gus Guide ${tag}` }).click();
    await row.getByRole('group', { name: `Deactivate Gus Guide ${tag}?` }).getByRole('button', { name: 'Deactivate' }).click();
    await expect(row).toContainText('deactivated');
    await admin.reload();
    await expect(admin.getByRole('navigation', { name: 'Boards' })).toBeVisible();
    await admin.getByRole('button', { name: 'People', exact: true }).click();
    const after = admin.getByRole('dialog', { name: 'People' }).getByRole('listitem').filter({ hasText: `Gus Guide ${tag}` });
    await expect(after).toContainText('deactivated');
    await expect(after).toContainText('Cannot sign in any more');
    await expect(after.getByRole('button')).toHaveCount(0);
    await screen(admin, `team-deactivated-${size.name}`);
    expect(await violations(admin)).toEqual([]);
    const wide = await admin.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(wide).toBeLessThanOrEqual(0);
  });
}

// The fullest header (D290): an administrator (People), a running timer, a long project name, and a sync badge with
// conflicts and refused pushes and a long "Synced 3 hours ago". Nothing is cut or pushed out at 1280 and 1024 px.
test('an administrator\'s header is whole with a running timer and every sync badge (1280 and 1024 px)', async ({ page, request }) => {
  await page.route('**/sync/status', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({
    state: 'ok', lastSuccessAt: new Date(Date.now() - 3 * 3600_000).toISOString(), pending: 3, rejected: 2, conflicts: 12, progress: null,
    remote: { url: 'https://team.example.com', user: 'ada', kind: 'bivouac' }, error: null }) }));
  const pid = await apiCall<{ id: number }>(request, 'ada', 'POST', '/projects.json', { project: { name: uniq('A rather long project name for the header') } });
  const l = await apiCall<{ id: number }>(request, 'ada', 'POST', `/projects/${pid.id}/todo_lists.json`, { todo_list: { name: 'Hut' } });
  await apiCall(request, 'ada', 'POST', `/todo_lists/${l.id}/todo_items.json`, { todo_item: { content: 'Fix the stove' } });
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, 'ada');
  await page.evaluate((p) => { window.location.hash = `#/projects/${p}/todos`; }, pid.id);
  await page.getByRole('button', { name: 'Fix the stove', exact: true }).click();
  await page.getByRole('button', { name: 'Start a timer on “Fix the stove”' }).click();
  await expect(page.locator('header .header-timer')).toBeVisible();
  await page.keyboard.press('Escape');
  for (const width of [1280, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    await settled(page);
    const cut = await page.locator('header.top').evaluate((h) => [h, ...h.querySelectorAll('nav, button, .who, .header-timer')]
      .filter((e) => (e as HTMLElement).offsetParent !== null && (e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > innerWidth + 0.5))
      .map((e) => e.textContent || e.getAttribute('aria-label')));
    expect(cut, `${width} px`).toEqual([]);
    for (const name of ['People', 'Sign out', 'Settings', 'Keyboard shortcuts']) {
      await expect(page.getByRole('button', { name, exact: true })).toBeInViewport({ ratio: 1 });
    }
    await expect(page.getByRole('button', { name: /^My account/ })).toBeInViewport({ ratio: 1 });
    await expect(page.getByRole('button', { name: /^Sync: 3 changes waiting/ })).toBeInViewport({ ratio: 1 });
    await expect(page.locator('header .sync-issues')).toHaveText('⚠ 14');
    await screen(page, `team-header-full-${width}`);
  }
});

// What #27 still lacked (D331, D332): a deactivated person is offered in no picker of a teammate who is not an
// administrator, and a milestone still naming them keeps them on save; a replica's People area says where people
// are managed. At the desktop size and at 360 px.
for (const size of SIZES) {
  test(`a deactivated person is offered in no picker, and a value naming them is kept (${size.name})`, async ({ browser, request }) => {
    const tag = uniq('x').split(' ')[1] + size.name[0];
    const pid = (await apiCall<{ id: number }>(request, 'ada', 'POST', '/projects.json', { project: { name: `Pickers ${tag}` } })).id;
    const people = await apiCall<{ id: number; user_name?: string; company_id: number }[]>(request, 'ada', 'GET', '/people.json');
    const fran = people.find((p) => p.user_name === 'fran')!;
    const olga = await apiCall<{ id: number }>(request, 'ada', 'POST', '/people.json', { person: {
      first_name: 'Olga', last_name: `Gone ${tag}`, user_name: `olga${tag}`, email_address: `olga${tag}@summit.example`, company_id: fran.company_id, password: 'olga-rope-2027' } });
    for (const id of [fran.id, olga.id]) await apiCall(request, 'ada', 'POST', `/projects/${pid}/people.json`, { person: { id } });
    const [m] = await apiCall<{ id: number }[]>(request, 'ada', 'POST', `/projects/${pid}/milestones/create`, { milestone: { title: 'Hut booked', deadline: '2099-07-01', responsible_party: String(olga.id) } });
    await apiCall(request, 'ada', 'DELETE', `/people/${olga.id}.json`);

    const page = await fresh(browser, size.viewport);
    await signIn(page, 'fran');
    await page.getByLabel('Project').selectOption(String(pid));
    await page.evaluate((p) => { window.location.hash = `#/projects/${p}/milestones`; }, pid);
    await page.getByRole('button', { name: 'New milestone' }).click();
    const form = page.getByRole('form', { name: 'New milestone' });
    const pick = form.getByRole('combobox', { name: 'Responsible' });
    await expect(pick.locator('option')).toContainText(['Fran Firm']);
    await expect(pick.locator('option', { hasText: 'Olga' })).toHaveCount(0);
    await form.getByRole('button', { name: 'Cancel' }).click();

    await expect(page.locator('.milestone .party')).toHaveText(`Olga Gone ${tag} (deactivated)`);
    await page.getByRole('button', { name: 'Edit milestone Hut booked' }).click();
    const edit = page.getByRole('form', { name: 'Edit milestone Hut booked' });
    await expect(edit.getByRole('combobox', { name: 'Responsible' }).locator('option:checked')).toHaveText(`Olga Gone ${tag} (deactivated)`);
    await edit.getByLabel('Title').fill('Hut booked and paid');
    await screen(page, `pickers-deactivated-${size.name}`);
    expect(await violations(page)).toEqual([]);
    await edit.getByRole('button', { name: 'Save' }).click();
    await settled(page);
    await expect.poll(async () => (await apiCall<{ title: string; responsible_party_id?: number }[]>(request, 'ada', 'GET', `/projects/${pid}/milestones/list.json`))
      .map((x) => [x.title, x.responsible_party_id])).toEqual([['Hut booked and paid', olga.id]]);
    expect(m.id).toBeGreaterThan(0);
  });

  test(`a replica's People area says where people are managed, with a link, and no action that would be refused (${size.name})`, async ({ browser }) => {
    const page = await fresh(browser, size.viewport);
    await page.route('**/sync/status', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({
      state: 'ok', lastSuccessAt: new Date().toISOString(), pending: 0, rejected: 0, conflicts: 0, progress: null,
      remote: { url: 'https://team.example.com:4817/', user: 'ada', kind: 'team' }, error: null }) }));
    await signIn(page, 'ada');
    await page.getByRole('button', { name: 'People', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'People' });
    const note = dialog.getByRole('note');
    await expect(note).toContainText('managed there');
    const link = note.getByRole('link', { name: 'Open https://team.example.com:4817/ in the browser' });
    await expect(link).toHaveAttribute('href', 'https://team.example.com:4817/');
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(dialog.getByRole('heading', { name: /^Summit Firm Ltd/ })).toBeVisible();
    for (const name of ['Add a person', 'Add company']) await expect(dialog.getByRole('button', { name, exact: true })).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: /^(Edit|Deactivate|Reset the password)/ })).toHaveCount(0);
    await screen(page, `team-replica-${size.name}`);
    expect(await violations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Projects', exact: true }).click();
    await expect(page.getByRole('dialog', { name: 'Projects' }).getByText('Members are added and removed on the team server.')).toBeVisible();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(wide).toBeLessThanOrEqual(0);
  });

  test(`a replica of a team server that takes administration offers the actions, and says offline that they go up later (${size.name})`, async ({ browser }) => {
    const page = await fresh(browser, size.viewport);
    await page.route('**/sync/status', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({
      state: 'offline', lastSuccessAt: new Date().toISOString(), offlineSince: new Date().toISOString(), pending: 0, rejected: 0, conflicts: 0, progress: null,
      remote: { url: 'https://team.example.com:4817/', user: 'ada', kind: 'team' }, error: null,
      administration: { mode: 'queued', at: 'https://team.example.com:4817/', plain: false } }) }));
    await signIn(page, 'ada');
    await page.getByRole('button', { name: 'People', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'People' });
    const note = dialog.getByRole('note');
    await expect(note).toContainText('The team server does not answer: what you change here is kept');
    await expect(note.getByRole('link')).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: 'Add a person', exact: true })).toBeVisible();
    await expect(dialog.getByRole('button', { name: /^Edit Fran/ })).toBeVisible();
    await expect(dialog.getByRole('button', { name: /^Reset the password/ })).toHaveCount(0);
    await dialog.getByRole('button', { name: 'Add a person', exact: true }).click();
    await expect(dialog.getByText(/kept nowhere here/)).toBeVisible();
    await screen(page, `team-replica-queued-${size.name}`);
    expect(await violations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.getByRole('button', { name: 'Projects', exact: true }).click();
    const pdialog = page.getByRole('dialog', { name: 'Projects' });
    await expect(pdialog.getByLabel('Add a member')).toBeVisible();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(wide).toBeLessThanOrEqual(0);
  });
}
