// The welcome page of a service started with a remote on an empty data directory (issue #25, D253): the
// clone going on in the background is shown (not the first-run form), then the sign-in once it is done.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { api } from '../api.ts';
import { Welcome } from './FirstRun.tsx';

afterEach(() => { cleanup(); vi.restoreAllMocks(); });

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
