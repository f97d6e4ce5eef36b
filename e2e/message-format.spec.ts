import { expect, test } from '@playwright/test';
import { apiCall, newProject, openBoard, settled, signIn, uniq } from './helpers.ts';

test('messages: a safe Textile subset with preview and Ctrl+Enter; no script gets through; list rows are links', async ({ page, context, request }) => {
  const pid = await newProject(request, uniq('Dru'));
  await apiCall(request, 'ada', 'POST', `/projects/${pid}/posts.json`, {
    post: { title: 'Hostile body', use_textile: true, body: '<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script>\n\n"click":javascript:window.__xss=3 and *fine*' },
  });
  await signIn(page, 'ada');
  await page.getByLabel('Project').selectOption(String(pid));
  await openBoard(page, pid, 'messages');

  // write a message with formatting, preview it, post it with Ctrl+Enter
  await page.getByRole('button', { name: 'New message' }).click();
  const form = page.getByRole('form', { name: 'New message' });
  await form.getByLabel('Title').fill('Route plan');
  await form.getByLabel('Message').fill('We go *early*, see "the topo":https://example.com/topo.\n\n* ropes\n* _two_ stoves');
  await form.getByRole('button', { name: 'Preview' }).click();
  const preview = form.getByLabel('Preview');
  await expect(preview.locator('strong')).toHaveText('early');
  await expect(preview.getByRole('link', { name: 'the topo' })).toHaveAttribute('href', 'https://example.com/topo');
  await expect(preview.locator('li')).toHaveText(['ropes', 'two stoves']);
  await form.getByRole('button', { name: 'Back to editing' }).click();
  await form.getByLabel('Message').press('Control+Enter');
  await expect(page.getByRole('heading', { name: 'Route plan', level: 1 })).toBeVisible();
  const body = page.locator('.message-body');
  await expect(body.locator('em')).toHaveText('two');
  const link = body.getByRole('link', { name: 'the topo' });
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', /noopener/);

  // a comment posts with Ctrl+Enter and is formatted too
  await page.getByLabel('Your comment').fill('Agreed, *4am* start');
  await page.getByLabel('Your comment').press('Control+Enter');
  await expect(page.locator('.comment-list .textile strong')).toHaveText('4am');

  // the hostile body shows as text: no element, no script, no javascript: link
  await page.getByRole('link', { name: '← All messages' }).or(page.getByRole('button', { name: '← All messages' })).click();
  await page.locator('.post-list').getByText('Hostile body').click();
  await settled(page);
  await expect(body).toContainText('<img src=x onerror="window.__xss=1">');
  await expect(body.locator('img, script')).toHaveCount(0);
  await expect(body.locator('a')).toHaveCount(0);
  await expect(body.locator('strong')).toHaveText('fine');
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

  // messages in the list are links: each opens in a new tab
  await page.getByRole('button', { name: '← All messages' }).click();
  const row = page.locator('.post-list a.post-row', { hasText: 'Route plan' });
  await expect(row).toHaveAttribute('href', new RegExp(`#/projects/${pid}/messages/\\d+$`));
  const [tab] = await Promise.all([context.waitForEvent('page'), row.click({ modifiers: ['Control'] })]);
  await tab.waitForLoadState();
  await expect(tab.getByRole('heading', { name: 'Route plan', level: 1 })).toBeVisible();
});
