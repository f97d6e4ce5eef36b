// The responsible party pickers (issue #27, D331): a deactivated person is never offered as a new choice, but a
// current value that names one stays shown (and selected) so that saving keeps it.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { api } from '../../../renderer/api.ts';
import { useSession } from '../../../renderer/stores/session.ts';
import { usePeople } from '../../../renderer/stores/people.ts';
import { PartySelect } from '../../../renderer/components/PartySelect.tsx';

const person = (id: number, first: string) =>
  ({ id, first_name: first, last_name: 'Test', email_address: `${first}@x.example`, company_id: 1 }) as never;

describe('PartySelect', () => {
  afterEach(() => {
    cleanup(); vi.restoreAllMocks();
    usePeople.setState({ deactivated: new Set() });
    useSession.setState({ members: [], projectCompanies: [], people: [], projectId: null });
  });
  const setup = (off: number[], complete = true) => {
    const ids = vi.spyOn(api, 'deactivatedIds').mockResolvedValue({ complete, ids: off });
    const members = [person(1, 'Ada'), person(2, 'Fran'), person(3, 'Finn')];
    useSession.setState({ projectId: 7, members, people: [...members, person(9, 'Olga')], projectCompanies: [{ id: 1, name: 'Summit' } as never] });
    return ids;
  };
  const options = () => [...(screen.getByRole('combobox') as HTMLSelectElement).options].map((o) => o.textContent);

  it('asks who is deactivated and does not offer them as a new responsible party', async () => {
    const ids = setup([2]);
    render(<PartySelect label="Responsible" value="" onChange={() => undefined} />);
    await waitFor(() => expect(options()).not.toContain('Fran Test'));
    expect(ids).toHaveBeenCalled();
    expect(options()).toEqual(['Nobody', 'Ada Test', 'Finn Test', 'Summit']);
  });

  it('keeps a current value that names a deactivated person, marked, and selected (saving keeps it)', async () => {
    setup([2]);
    render(<PartySelect label="Responsible" value="2" onChange={() => undefined} />);
    await waitFor(() => expect(options()).toContain('Fran Test (deactivated)'));
    expect((screen.getByRole('combobox') as HTMLSelectElement).value).toBe('2');
    expect(options().filter((o) => o?.startsWith('Fran'))).toHaveLength(1);
  });

  it('keeps a current value naming someone no longer a member', async () => {
    setup([]);
    render(<PartySelect label="Responsible" value="9" onChange={() => undefined} />);
    expect(options()).toContain('Olga Test (not a member)');
    expect((screen.getByRole('combobox') as HTMLSelectElement).value).toBe('9');
  });

  it('as a filter lists the deactivated too, marked (their old items are what one looks for)', async () => {
    setup([2]);
    render(<PartySelect label="Filter" includeAny value="" onChange={() => undefined} />);
    await waitFor(() => expect(options()).toContain('Fran Test (deactivated)'));
  });

  it('a replica’s answer (not complete) changes nothing: everyone is offered', async () => {
    usePeople.setState({ deactivated: new Set() });
    const ids = setup([2], false);
    render(<PartySelect label="Responsible" value="" onChange={() => undefined} />);
    await waitFor(() => expect(ids).toHaveBeenCalled());
    expect(options()).toContain('Fran Test');
  });
});

describe('who is deactivated is read once for the pickers of a board', () => {
  afterEach(() => { cleanup(); vi.restoreAllMocks(); useSession.setState({ members: [], projectId: null }); });
  it('several pickers mounted together share one request', async () => {
    let answer: (v: { complete: boolean; ids: number[] }) => void = () => undefined;
    const ids = vi.spyOn(api, 'deactivatedIds').mockReturnValue(new Promise((r) => { answer = r; }));
    useSession.setState({ projectId: 8, members: [person(2, 'Fran')] });
    render(<><PartySelect label="A" value="" onChange={() => undefined} /><PartySelect label="B" value="" onChange={() => undefined} includeAny /></>);
    expect(ids).toHaveBeenCalledTimes(1);
    answer({ complete: true, ids: [2] });
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'B' }).textContent).toContain('Fran Test (deactivated)'));
    expect([...(screen.getByRole('combobox', { name: 'A' }) as HTMLSelectElement).options].map((o) => o.textContent)).not.toContain('Fran Test');
    usePeople.setState({ deactivated: new Set() });
  });
});
