import { useEffect } from 'react';
import { useSession, fullName } from '../stores/session.ts';
import { loadDeactivated, offLabel, usePeople } from '../stores/people.ts';

/**
 * Responsible party select: people of the project and its companies (`4` / `c12`). A deactivated person is never
 * offered as a new choice (D331); a current value that names one (or someone who left the project) stays shown, as
 * "Name (deactivated)", so that saving keeps it. As a filter (`includeAny`) everyone is listed, the deactivated
 * marked: their old items are what one looks for to give them to someone else.
 */
export function PartySelect({ value, onChange, label, includeAny = false, id }: {
  value: string; onChange: (v: string) => void; label: string; includeAny?: boolean; id?: string;
}) {
  const members = useSession((s) => s.members);
  const companies = useSession((s) => s.projectCompanies);
  const people = useSession((s) => s.people);
  const projectId = useSession((s) => s.projectId);
  const off = usePeople((s) => s.deactivated);
  useEffect(() => { void loadDeactivated(); }, [projectId]);
  const offered = members.filter((p) => includeAny || !off.has(p.id) || String(p.id) === value);
  // The current value, when it is not among those offered (a former member): shown so that saving keeps it.
  const held = /^\d+$/.test(value) && !offered.some((p) => String(p.id) === value) ? people.find((p) => String(p.id) === value) : undefined;
  return (
    <select id={id} aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      {includeAny && <option value="">Anyone</option>}
      <option value={includeAny ? 'none' : ''}>{includeAny ? 'Unassigned' : 'Nobody'}</option>
      {(offered.length > 0 || held) && (
        <optgroup label="People">
          {offered.map((p) => <option key={p.id} value={String(p.id)}>{offLabel(fullName(p), off.has(p.id))}</option>)}
          {held && <option value={value}>{off.has(held.id) ? offLabel(fullName(held), true) : `${fullName(held)} (not a member)`}</option>}
        </optgroup>
      )}
      {companies.length > 0 && <optgroup label="Companies">{companies.map((c) => <option key={c.id} value={`c${c.id}`}>{c.name}</option>)}</optgroup>}
    </select>
  );
}
