// The signed-out page (D240, D241, D253): an empty team server shows how it is set up (no form); the demo's
// sign-in note names its user from GET /setup.json and its password from the page's own text; a service
// started with a remote on an empty data directory shows the clone going on, then the sign-in.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { api } from '../../../renderer/api.ts';
import { Welcome } from '../../../renderer/components/FirstRun.tsx';

afterEach(() => { cleanup(); vi.restoreAllMocks(); });

const answer = (data: unknown) => ({ data }) as Awaited<ReturnType<typeof api.request>>;

describe('the signed-out page', () => {
  it('an empty team server (form: false) says to run bivouac setup on its machine, and shows no form', async () => {
    vi.spyOn(api, 'request').mockResolvedValue(answer({ empty: true, demo: null, form: false }));
    render(<Welcome />);
    expect(await screen.findByRole('heading', { name: 'This Bivouac server has no account yet' })).toBeTruthy();
    expect(screen.getAllByText('bivouac setup').length).toBeGreaterThan(0);
    expect(screen.queryByRole('button', { name: 'Create my account' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Load the demo account' })).toBeNull();
  });

  it('the local service (form: true) offers the first-run form', async () => {
    vi.spyOn(api, 'request').mockResolvedValue(answer({ empty: true, demo: null, form: true }));
    render(<Welcome />);
    expect(await screen.findByRole('button', { name: 'Create my account' })).toBeTruthy();
  });

  it('the demo note fills in the demo user from the answer and the documented password', async () => {
    vi.spyOn(api, 'request').mockResolvedValue(answer({ empty: false, demo: { user: 'alex' }, form: true }));
    render(<Welcome />);
    const note = await screen.findByRole('note');
    expect(note.textContent).toContain('alex');
    fireEvent.click(screen.getByRole('button', { name: 'Fill it in' }));
    expect((screen.getByLabelText('User name') as HTMLInputElement).value).toBe('alex');
    expect((screen.getByLabelText('Password') as HTMLInputElement).value).toBe('bivouac');
  });
});

describe('welcome, while a start with --remote clones', () => {
  it('shows the clone\'s progress, then the sign-in form', async () => {
    const answers = [
      { empty: true, demo: null, connecting: { progress: null } },
      { empty: true, demo: null, connecting: { progress: { done: 2, total: 5 } } },
      { empty: false, demo: null },
    ];
    let k = 0;
    vi.spyOn(api, 'request').mockImplementation(async () => ({ data: answers[Math.min(k++, answers.length - 1)] as never, headers: { get: () => null } }));
    render(<Welcome />);
    expect(await screen.findByText(/Connecting to your team server/)).toBeTruthy();
    expect(screen.queryByText('Connect to a team server')).toBeNull();
    await vi.waitFor(() => expect(screen.getByRole('progressbar', { name: "Copying your team's data" }).getAttribute('max')).toBe('5'), { timeout: 3000 });
    expect(await screen.findByText('Sign in to Bivouac', {}, { timeout: 3000 })).toBeTruthy();
  });
});
