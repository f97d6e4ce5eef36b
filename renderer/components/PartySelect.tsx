import { useSession, fullName } from '../stores/session.ts';

/** Responsible party select: people of the project and its companies (`4` / `c12`). */
export function PartySelect({ value, onChange, label, includeAny = false, id }: {
  value: string; onChange: (v: string) => void; label: string; includeAny?: boolean; id?: string;
}) {
  const members = useSession((s) => s.members);
  const companies = useSession((s) => s.projectCompanies);
  return (
    <select id={id} aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      {includeAny && <option value="">Anyone</option>}
      <option value={includeAny ? 'none' : ''}>{includeAny ? 'Unassigned' : 'Nobody'}</option>
      {members.length > 0 && <optgroup label="People">{members.map((p) => <option key={p.id} value={String(p.id)}>{fullName(p)}</option>)}</optgroup>}
      {companies.length > 0 && <optgroup label="Companies">{companies.map((c) => <option key={c.id} value={`c${c.id}`}>{c.name}</option>)}</optgroup>}
    </select>
  );
}
