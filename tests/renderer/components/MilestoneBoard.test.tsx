// The milestone editor's "Move upcoming milestones" (issue #27, contract §8.7, D333): offered when the due date
// changes and later open milestones exist, off by default, said in words; the board moves them at once.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Milestone } from '../../../shared/client.ts';
import { api } from '../../../renderer/api.ts';
import { useMilestones } from '../../../renderer/stores/milestones.ts';
import { useSession } from '../../../renderer/stores/session.ts';
import { useUi } from '../../../renderer/stores/ui.ts';
import { MilestoneBoard } from '../../../renderer/components/MilestoneBoard.tsx';

const ms = (id: number, deadline: string, extra: Partial<Milestone> = {}): Milestone => ({
  id, title: `M${id}`, deadline, completed: false, comments_count: 0, commented_at: null, created_on: '', creator_id: 1,
  creator_name: 'Ada Admin', project_id: 7, wants_notification: false, ...extra,
});

describe('the milestone editor: move the later milestones', () => {
  let board: Milestone[];
  beforeEach(() => {
    board = [ms(1, '2099-03-02'), ms(2, '2099-03-10'), ms(3, '2099-03-20'), ms(4, '2099-04-01', { completed: true, completed_at: '2099-01-01T00:00:00Z' }), ms(5, '2099-03-01')];
    useUi.setState({ toasts: [], busy: 0, connection: 'online' });
    useMilestones.setState({ projectId: null, milestones: [] });
    useSession.setState({ projectId: 7, members: [], projectCompanies: [], people: [] });
    vi.spyOn(api, 'milestones').mockImplementation(async () => structuredClone(board));
    vi.spyOn(api, 'todoLists').mockResolvedValue([]);
    vi.spyOn(api, 'posts').mockResolvedValue([]);
    vi.spyOn(api, 'deactivatedIds').mockResolvedValue({ complete: true, ids: [] });
  });
  afterEach(() => { cleanup(); vi.restoreAllMocks(); localStorage.clear(); sessionStorage.clear(); });

  const edit = async (title: string) => {
    render(<MilestoneBoard projectId={7} />);
    fireEvent.click(await screen.findByRole('button', { name: `Edit milestone ${title}` }));
    return screen.getByRole('form', { name: `Edit milestone ${title}` });
  };

  it('is offered only when the due date changes, off by default, in words; checked, the later open ones move', async () => {
    const update = vi.spyOn(api, 'updateMilestone').mockImplementation(async (id, input, move) => {
      const d = input.deadline!;
      board = board.map((m) => (m.id === id ? { ...m, deadline: d } : move?.upcoming && (m.id === 2 || m.id === 3) ? { ...m, deadline: m.id === 2 ? '2099-03-15' : '2099-03-25' } : m));
      return board.find((m) => m.id === id)!;
    });
    const form = await edit('M1');
    expect(within(form).queryByText(/Also move/)).toBeNull();
    fireEvent.change(within(form).getByLabelText('Due date'), { target: { value: '2099-03-07' } });
    const box = within(form).getByRole('checkbox', { name: 'Also move the 2 later milestones by 5 days' }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    expect(within(form).getByRole('checkbox', { name: /Keep them off weekends/ })).toBeTruthy();
    fireEvent.submit(form);
    await waitFor(() => expect(update).toHaveBeenCalledWith(1, { deadline: '2099-03-07' }, { upcoming: true, offWeekends: false }));
    await waitFor(() => expect(screen.queryByRole('form', { name: 'Edit milestone M1' })).toBeNull());
    const due = (id: number) => document.querySelector(`.milestone[data-milestone-id="${id}"] time`)!.getAttribute('datetime');
    await waitFor(() => expect([due(1), due(2), due(3), due(4), due(5)]).toEqual(['2099-03-07', '2099-03-15', '2099-03-25', '2099-04-01', '2099-03-01']));
  });

  it('left unchecked, only this milestone moves; an earlier date says "back by"', async () => {
    const update = vi.spyOn(api, 'updateMilestone').mockImplementation(async (id, input) => ({ ...board.find((m) => m.id === id)!, ...input }) as Milestone);
    const form = await edit('M2');
    fireEvent.change(within(form).getByLabelText('Due date'), { target: { value: '2099-03-08' } });
    expect(within(form).getByRole('checkbox', { name: 'Also move the later milestone back by 2 days' })).toBeTruthy();
    fireEvent.submit(form);
    await waitFor(() => expect(update).toHaveBeenCalledWith(2, { deadline: '2099-03-08' }, undefined));
  });

  it('is not offered when no open milestone is due later', async () => {
    await edit('M3');
    const form = screen.getByRole('form', { name: 'Edit milestone M3' });
    fireEvent.change(within(form).getByLabelText('Due date'), { target: { value: '2099-03-22' } });
    expect(within(form).queryByText(/Also move/)).toBeNull();
  });
});
