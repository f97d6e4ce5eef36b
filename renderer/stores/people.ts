// The People area's directory state (issue #27): who is deactivated. The person record does not say it (its
// representation is the contract's); administrators ask GET /people/deactivated.json (D291). A failure (a
// replica: 409, people are managed on the team server) leaves the set as it was and is not an error to show.

import { create } from 'zustand';
import { api } from '../api.ts';
import { track } from './ui.ts';
import { useSession } from './session.ts';

interface PeopleState {
  /** Ids of the deactivated people, as last read (plus those deactivated in this session since). */
  deactivated: ReadonlySet<number>;
  markDeactivated: (id: number) => void;
}

export const usePeople = create<PeopleState>((set) => ({
  deactivated: new Set<number>(),
  markDeactivated: (id) => set((s) => ({ deactivated: new Set([...s.deactivated, id]) })),
}));

/** Reload people and companies into the session (names everywhere) and, for an administrator, who is deactivated. */
export async function reloadDirectory(): Promise<void> {
  const admin = useSession.getState().admin;
  const [people, companies, off] = await track(Promise.all([
    api.people(), api.companies(), admin ? api.deactivatedPeople().catch(() => null) : Promise.resolve(null),
  ]));
  useSession.setState({ people, companies });
  if (off) usePeople.setState({ deactivated: new Set(off.map((p) => p.id)) });
}
