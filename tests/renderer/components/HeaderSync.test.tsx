// The header's sync badge says what is true (issue #26): "Synced", "Syncing…", "Offline since 10:42",
// "3 changes waiting", following the status the store holds.
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCAL_ONLY, type SyncStatus } from '../../../shared/sync-status.ts';
import { useSync } from '../../../renderer/stores/sync.ts';
import { useUi } from '../../../renderer/stores/ui.ts';
import { Header } from '../../../renderer/components/Header.tsx';

const team = { url: 'http://team.example', user: 'ada', kind: 'team' as const };
const status = (x: Partial<SyncStatus>): SyncStatus => ({ ...LOCAL_ONLY, state: 'idle', remote: team, lastSuccessAt: new Date().toISOString(), ...x });
const badge = () => screen.getByRole('button', { name: /^Sync: / });

afterEach(() => { useSync.setState({ status: null }); });

describe('the header\'s sync badge', () => {
  it('follows the status: synced, changes waiting, syncing, offline since a time', () => {
    useUi.setState({ connection: 'online' });
    useSync.setState({ status: status({ live: true }) });
    render(<Header />);
    expect(badge().textContent).toBe('Synced');
    act(() => useSync.setState({ status: status({ pending: 3 }) }));
    expect(badge().textContent).toBe('3 changes waiting');
    act(() => useSync.setState({ status: status({ state: 'syncing', pending: 3 }) }));
    expect(badge().textContent).toBe('Syncing…');
    const d = new Date();
    d.setHours(0, 0, 0, 0); // today at 00:00, local time: "since 00:00" whatever the hour of the run
    act(() => useSync.setState({ status: status({ state: 'offline', pending: 1, offlineSince: d.toISOString() }) }));
    expect(badge().textContent).toBe('Offline since 00:00');
    expect(badge().getAttribute('title')).toContain('1 change wait');
    act(() => useSync.setState({ status: status({ pending: 0 }) }));
    expect(badge().textContent).toBe('Synced');
  });
});
