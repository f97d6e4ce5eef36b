// The invitation link (issue #27): its format round-trips, and the signed-out page it opens asks for a
// password, shows the server's refusal in words, and never calls the route when the two passwords differ.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { api, ApiError } from '../../../renderer/api.ts';
import { Welcome } from '../../../renderer/components/FirstRun.tsx';
import { invitationLink, parseInvitation, PeopleOverlay } from '../../../renderer/components/People.tsx';
import { useSync } from '../../../renderer/stores/sync.ts';
import type { SyncStatus } from '../../../shared/client.ts';
import { LOCAL_ONLY } from '../../../shared/sync-status.ts';
import { useSession } from '../../../renderer/stores/session.ts';
import { usePeople } from '../../../renderer/stores/people.ts';

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
    useSync.setState({ status: { ...LOCAL_ONLY, state: 'idle', remote: { url: 'http://team.example', user: 'ada', kind: 'team' } } satisfies SyncStatus });
    render(<PeopleOverlay tab="people" />);
    expect((await screen.findByRole('note')).textContent).toContain('copy of the team server at http://team.example');
    fireEvent.change(screen.getByLabelText('New client company'), { target: { value: 'Valley' } });
    fireEvent.submit(screen.getByRole('button', { name: 'Add company' }).closest('form')!);
    expect((await screen.findByRole('alert')).textContent).toContain('managed on the team server');
    useSync.setState({ status: null });
  });
});

describe('the People area: companies and deactivated people (issue #27)', () => {
  const firm = { id: 1, name: 'Summit Firm', can_see_private: true } as never;
  const client = { id: 2, name: 'Valley Club', can_see_private: false } as never;
  const person = (id: number, first: string, company: number) =>
    ({ id, first_name: first, last_name: 'Test', user_name: first.toLowerCase(), email_address: `${first.toLowerCase()}@x.example`, company_id: company, administrator: id === 1 }) as never;
  const setup = (deactivated: number[]) => {
    useSession.setState({ admin: true, me: { ...person(1, 'Ada', 1) as object, token: 't' } as never, people: [], companies: [] });
    vi.spyOn(api, 'people').mockResolvedValue([person(1, 'Ada', 1), person(2, 'Fran', 1), person(3, 'Finn', 1)]);
    vi.spyOn(api, 'companies').mockResolvedValue([firm, client]);
    return vi.spyOn(api, 'deactivatedPeople').mockResolvedValue(deactivated.map((id) => person(id, 'X', 1)));
  };
  afterEach(() => { usePeople.setState({ deactivated: new Set() }); useSession.setState({ admin: false, me: null, people: [], companies: [] }); });

  it('marks the people the server says are deactivated (after any reload), last in their company, without actions', async () => {
    const off = setup([2]);
    render(<PeopleOverlay tab="people" />);
    const fran = (await screen.findByText('Fran Test')).closest('li')!;
    expect(off).toHaveBeenCalled();
    expect(within(fran).getByText('deactivated')).toBeTruthy();
    expect(within(fran).getByText(/Cannot sign in any more/)).toBeTruthy();
    expect(within(fran).queryByRole('button')).toBeNull();
    const finn = screen.getByText('Finn Test').closest('li')!;
    expect(within(finn).queryByText('deactivated')).toBeNull();
    expect(within(finn).getByRole('button', { name: 'Deactivate Finn Test' })).toBeTruthy();
    const names = [...screen.getByRole('region', { name: 'Summit Firm' }).querySelectorAll('li strong')].map((e) => e.textContent);
    expect(names).toEqual(['Ada Test', 'Finn Test', 'Fran Test']);
  });

  it('edits a company: its name (a refusal in words, then saved); whether it sees private records is said', async () => {
    setup([]);
    const update = vi.spyOn(api, 'updateCompany')
      .mockRejectedValueOnce(new ApiError(422, ['Name has already been taken']))
      .mockResolvedValueOnce({ id: 2, name: 'Valley Guides', can_see_private: false } as never);
    render(<PeopleOverlay tab="people" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Edit company Valley Club' }));
    const field = screen.getByLabelText('Company name') as HTMLInputElement;
    expect(field.value).toBe('Valley Club');
    expect(screen.getByText(/a client company never sees them/)).toBeTruthy();
    fireEvent.change(field, { target: { value: 'Summit Firm' } });
    fireEvent.submit(field.closest('form')!);
    expect((await screen.findByRole('alert')).textContent).toContain('Name has already been taken');
    expect((screen.getByLabelText('Company name') as HTMLInputElement).value).toBe('Summit Firm');
    fireEvent.change(field, { target: { value: ' Valley Guides ' } });
    vi.mocked(api.companies).mockResolvedValue([firm, { id: 2, name: 'Valley Guides', can_see_private: false } as never]);
    fireEvent.submit(field.closest('form')!);
    expect(await screen.findByRole('heading', { name: /^Valley Guides/ })).toBeTruthy();
    expect(update).toHaveBeenLastCalledWith(2, { name: 'Valley Guides' });
    expect(screen.queryByLabelText('Company name')).toBeNull();
  });

  it('an empty company says what to do next, and its button adds a person to that company', async () => {
    setup([]);
    render(<PeopleOverlay tab="people" />);
    expect(await screen.findByText(/Nobody at Valley Club yet/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Add a person to Valley Club' }));
    expect((screen.getByLabelText('Company') as HTMLSelectElement).value).toBe('2');
    expect(screen.queryByLabelText(/Administrator/)).toBeNull();
  });
});
