// The invitation link (issue #27): its format round-trips, and the signed-out page it opens asks for a
// password, shows the server's refusal in words, and never calls the route when the two passwords differ.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { api, ApiError } from '../../../renderer/api.ts';
import { Welcome } from '../../../renderer/components/FirstRun.tsx';
import { invitationLink, parseInvitation, PeopleOverlay, teamServerLink } from '../../../renderer/components/People.tsx';
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
  const replica = () => useSync.setState({ status: { ...LOCAL_ONLY, state: 'idle', remote: { url: 'http://ada:secret@team.example:4817/', user: 'ada', kind: 'team' } } satisfies SyncStatus });
  afterEach(() => { useSync.setState({ status: null }); useSession.setState({ people: [], companies: [], projects: [], projectId: null }); delete (window as { bivouac?: unknown }).bivouac; });

  it('on a replica says where people are managed, with a link to the team server, and offers no action that would be refused', async () => {
    vi.spyOn(api, 'people').mockResolvedValue([{ id: 2, first_name: 'Fran', last_name: 'Firm', email_address: 'f@x.example', company_id: 1 } as never]);
    vi.spyOn(api, 'companies').mockResolvedValue([{ id: 1, name: 'Summit', can_see_private: true } as never]);
    vi.spyOn(api, 'deactivatedIds').mockResolvedValue({ complete: false, ids: [] });
    const create = vi.spyOn(api, 'createCompany');
    replica();
    render(<PeopleOverlay tab="people" />);
    const note = await screen.findByRole('note');
    expect(note.textContent).toContain('managed there');
    const link = within(note).getByRole('link', { name: /Open http:\/\/team\.example:4817\/ in the browser/ }) as HTMLAnchorElement;
    expect(link.href).toBe('http://team.example:4817/'); // never the user name or password
    expect(link.target).toBe('_blank');
    expect(link.rel).toContain('noopener');
    await screen.findByText('Fran Firm');
    for (const name of ['Add a person', 'Add company', /Edit/, /Deactivate/, /Reset the password/]) expect(screen.queryByRole('button', { name })).toBeNull();
    expect(screen.queryByLabelText('New client company')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(create).not.toHaveBeenCalled();
  });

  it('in the desktop app the link opens in the system browser (shell:open-external)', async () => {
    vi.spyOn(api, 'people').mockResolvedValue([]);
    vi.spyOn(api, 'companies').mockResolvedValue([]);
    vi.spyOn(api, 'deactivatedIds').mockResolvedValue({ complete: false, ids: [] });
    const invoke = vi.fn().mockResolvedValue(true);
    (window as { bivouac?: unknown }).bivouac = { invoke, on: () => () => undefined };
    replica();
    render(<PeopleOverlay tab="people" />);
    fireEvent.click(within(await screen.findByRole('note')).getByRole('link'));
    expect(invoke).toHaveBeenCalledWith('shell:open-external', 'http://team.example:4817/');
  });

  it('on a replica the Projects tab keeps projects editable but not their members', async () => {
    vi.spyOn(api, 'people').mockResolvedValue([]);
    vi.spyOn(api, 'companies').mockResolvedValue([]);
    vi.spyOn(api, 'deactivatedIds').mockResolvedValue({ complete: false, ids: [] });
    vi.spyOn(api, 'projectPeople').mockResolvedValue([{ id: 2, first_name: 'Fran', last_name: 'Firm', email_address: 'f@x.example', company_id: 1 } as never]);
    useSession.setState({ projects: [{ id: 5, name: 'Denali', status: 'active' } as never], projectId: 5 });
    replica();
    render(<PeopleOverlay tab="projects" />);
    expect(await screen.findByText('Members are added and removed on the team server.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Create project' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Remove Fran Firm/ })).toBeNull();
    expect(screen.queryByLabelText('Add a member')).toBeNull();
  });

  it('a link is only ever http(s): anything else is shown as text', () => {
    expect(teamServerLink('https://u:p@team.example/x')).toBe('https://team.example/x');
    expect(teamServerLink('javascript:alert(1)')).toBeNull();
    expect(teamServerLink('not a url')).toBeNull();
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
    return vi.spyOn(api, 'deactivatedIds').mockResolvedValue({ complete: true, ids: deactivated });
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

describe('the People area on a replica of a team server that takes administration (D338)', () => {
  const firm = { id: 1, name: 'Summit Firm', can_see_private: true } as never;
  const person = (id: number, first: string) =>
    ({ id, first_name: first, last_name: 'Test', user_name: first.toLowerCase(), email_address: `${first.toLowerCase()}@x.example`, company_id: 1, administrator: id === 1 }) as never;
  const status = (o: Partial<SyncStatus>): SyncStatus => ({ ...LOCAL_ONLY, state: 'idle', remote: { url: 'http://team.example/', user: 'ada', kind: 'team' }, ...o });
  const setup = () => {
    useSession.setState({ admin: true, me: { ...person(1, 'Ada') as object, token: 't' } as never, people: [], companies: [] });
    vi.spyOn(api, 'people').mockResolvedValue([person(1, 'Ada'), person(2, 'Fran')]);
    vi.spyOn(api, 'companies').mockResolvedValue([firm]);
    vi.spyOn(api, 'deactivatedIds').mockResolvedValue({ complete: false, ids: [] });
  };
  afterEach(() => { useSync.setState({ status: null }); useSession.setState({ admin: false, me: null, people: [], companies: [], projects: [], projectId: null }); });

  it('offers the actions again, says the change goes up at the next sync, makes no invitation link here', async () => {
    setup();
    useSync.setState({ status: status({ administration: { mode: 'queued', at: 'http://team.example/', plain: false } }) });
    const invite = vi.spyOn(api, 'invite');
    const create = vi.spyOn(api, 'createPerson').mockResolvedValue(person(3, 'Nia'));
    render(<PeopleOverlay tab="people" />);
    const note = await screen.findByRole('note');
    expect(note.textContent).toContain('goes up to the team server at the next sync');
    expect(within(note).queryByRole('link')).toBeNull();
    const fran = (await screen.findByText('Fran Test')).closest('li')!;
    expect(within(fran).getByRole('button', { name: 'Edit Fran Test' })).toBeTruthy();
    expect(within(fran).getByRole('button', { name: 'Deactivate Fran Test' })).toBeTruthy();
    expect(within(fran).queryByRole('button', { name: /Reset the password/ })).toBeNull(); // an invitation: the team server's
    expect(screen.getByRole('button', { name: 'Edit company Summit Firm' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Add a person' }));
    for (const [label, value] of [['First name', 'Nia'], ['Last name', 'New'], ['User name', 'nia'], ['E-mail', 'nia@x.example']]) {
      fireEvent.change(screen.getByLabelText(label), { target: { value } });
    }
    expect(screen.getByText(/kept nowhere here/)).toBeTruthy();
    fireEvent.submit(screen.getByRole('button', { name: 'Add person' }).closest('form')!);
    await screen.findByRole('button', { name: 'Add a person' });
    expect(create).toHaveBeenCalled();
    expect(invite).not.toHaveBeenCalled();
  });

  it('offline, the note says the change is kept and goes up when the team server answers', async () => {
    setup();
    useSync.setState({ status: status({ state: 'offline', administration: { mode: 'queued', at: 'http://team.example/', plain: false } }) });
    render(<PeopleOverlay tab="projects" />);
    expect((await screen.findByRole('note')).textContent).toContain('The team server does not answer: what you change here is kept');
  });

  it('a disconnected replica (no remote any more) offers no action and says where people are managed', async () => {
    setup();
    useSync.setState({ status: status({ state: 'local', remote: null, administration: { mode: 'elsewhere', at: 'http://team.example/', plain: false } }) });
    render(<PeopleOverlay tab="people" />);
    const note = await screen.findByRole('note');
    expect(within(note).getByRole('link', { name: /Open http:\/\/team\.example\/ in the browser/ })).toBeTruthy();
    await screen.findByText('Fran Test');
    for (const name of ['Add a person', /Edit/, /Deactivate/, /Reset the password/]) expect(screen.queryByRole('button', { name })).toBeNull();
  });

  it('a replica of a plain server says it is not a Bivouac team server, and offers no action', async () => {
    setup();
    useSync.setState({ status: status({ remote: { url: 'http://plain.example/', user: 'ada', kind: 'plain' }, administration: { mode: 'elsewhere', at: 'http://plain.example/', plain: true } }) });
    render(<PeopleOverlay tab="people" />);
    expect((await screen.findByRole('note')).textContent).toContain('http://plain.example/, which is not a Bivouac team server');
    await screen.findByText('Fran Test');
    expect(screen.queryByRole('button', { name: 'Add a person' })).toBeNull();
  });
});
