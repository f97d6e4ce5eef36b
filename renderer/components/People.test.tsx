// The invitation link (issue #27): its format round-trips, and the signed-out page it opens asks for a
// password, shows the server's refusal in words, and never calls the route when the two passwords differ.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { api, ApiError } from '../api.ts';
import { Welcome } from './FirstRun.tsx';
import { invitationLink, parseInvitation, PeopleOverlay } from './People.tsx';
import { useSync } from '../stores/sync.ts';
import type { SyncStatus } from '../../shared/client.ts';

afterEach(() => { cleanup(); vi.restoreAllMocks(); window.history.replaceState(null, '', '#/'); });

const answer = (data: unknown) => ({ data }) as Awaited<ReturnType<typeof api.request>>;

describe('invitation links', () => {
  it('carry the token and the user name in the hash, and parse back', () => {
    const link = invitationLink('Ab_-9x', 'nia o\'neil');
    expect(link).toMatch(/#\/invite\/Ab_-9x\/nia%20o'neil$/);
    expect(parseInvitation(new URL(link).hash)).toEqual({ token: 'Ab_-9x', userName: 'nia o\'neil' });
    expect(parseInvitation('#/projects/3/todos')).toBeNull();
    expect(parseInvitation('#/invite/%E0%A4%A/x')).toBeNull();
  });

  it('open the page that sets the password; a refused token is said in words', async () => {
    window.history.replaceState(null, '', '#/invite/tok123/nia');
    vi.spyOn(api, 'request').mockResolvedValue(answer({ empty: false, demo: null, form: true }));
    const accept = vi.spyOn(api, 'acceptInvitation').mockRejectedValue(new ApiError(404, ['This invitation is not valid: ask an administrator for a new one']));
    render(<Welcome />);
    expect(await screen.findByRole('heading', { name: 'Welcome to your team on Bivouac' })).toBeTruthy();
    expect((screen.getByLabelText('User name') as HTMLInputElement).value).toBe('nia');
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'first-rope-2027' } });
    fireEvent.change(screen.getByLabelText('Password again'), { target: { value: 'other-rope-2027' } });
    fireEvent.submit(screen.getByRole('button', { name: 'Set my password and sign in' }).closest('form')!);
    expect((await screen.findByRole('alert')).textContent).toContain('The two passwords are not the same');
    expect(accept).not.toHaveBeenCalled();
    fireEvent.change(screen.getByLabelText('Password again'), { target: { value: 'first-rope-2027' } });
    fireEvent.submit(screen.getByRole('button', { name: 'Set my password and sign in' }).closest('form')!);
    expect(await screen.findByText('This invitation is not valid: ask an administrator for a new one')).toBeTruthy();
    expect(accept).toHaveBeenCalledWith('tok123', 'nia', 'first-rope-2027');
  });
});

describe('the People area', () => {
  it('on a replica says that people are managed on the team server; a refusal is shown in words', async () => {
    vi.spyOn(api, 'people').mockResolvedValue([]);
    vi.spyOn(api, 'companies').mockResolvedValue([{ id: 1, name: 'Summit', can_see_private: true } as never]);
    vi.spyOn(api, 'createCompany').mockRejectedValue(new ApiError(409, ['This is a copy of the team server at http://team.example: people, companies and project members are managed on the team server']));
    useSync.setState({ status: { remote: { url: 'http://team.example', user: 'ada', kind: 'bivouac' } } as SyncStatus });
    render(<PeopleOverlay tab="people" />);
    expect((await screen.findByRole('note')).textContent).toContain('copy of the team server at http://team.example');
    fireEvent.change(screen.getByLabelText('New client company'), { target: { value: 'Valley' } });
    fireEvent.submit(screen.getByRole('button', { name: 'Add company' }).closest('form')!);
    expect((await screen.findByRole('alert')).textContent).toContain('managed on the team server');
    useSync.setState({ status: null });
  });
});
