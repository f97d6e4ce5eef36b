// Who is deactivated (issue #27). The person record does not say it (its representation is the contract's);
// anyone signed in asks GET /people/deactivated-ids.json (D331) for the ids among the people they see. The People
// area marks them; every picker of a new responsible party, member or person offers none of them, and shows a
// current value that names one as "Name (deactivated)" so that saving keeps it. A replica's answer is not complete
// (its copy of a person does not carry the flag): the set is then left as it was, and a failure is not shown.

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

let reading: Promise<void> | null = null;

/**
 * Read who is deactivated (anyone); an incomplete answer (a replica) or a failure leaves the set as it was. The
 * pickers of one board ask together: they share one request.
 */
export function loadDeactivated(): Promise<void> {
  reading ??= api.deactivatedIds().then((r) => { if (r.complete) usePeople.setState({ deactivated: new Set(r.ids) }); }, () => undefined)
    .finally(() => { reading = null; });
  return reading;
}

/** Reload people and companies into the session (names everywhere), and who is deactivated. */
export async function reloadDirectory(): Promise<void> {
  const [people, companies] = await track(Promise.all([api.people(), api.companies(), loadDeactivated()]));
  useSession.setState({ people, companies });
}

/** A person's name in a picker: "(deactivated)" after it when they are. */
export const offLabel = (name: string, off: boolean): string => (off ? `${name} (deactivated)` : name);
