import { useEffect } from 'react';
import { mediumDate } from '../lib/dates.ts';
import { useMilestones } from '../stores/milestones.ts';
import { useSession } from '../stores/session.ts';

/**
 * The milestone a todo list or a message belongs to (issue #27): "No milestone" or one of the
 * project's milestones (open ones first, each with its due date). A milestone named by the record
 * but not (or not yet) loaded stays selectable, so that saving never drops it by accident.
 */
export function MilestoneSelect({ value, onChange, label = 'Milestone' }: { value: number | null; onChange: (v: number | null) => void; label?: string }) {
  const projectId = useSession((s) => s.projectId);
  const loadedFor = useMilestones((s) => s.projectId);
  const milestones = useMilestones((s) => s.milestones);
  useEffect(() => { if (projectId) void useMilestones.getState().loadMilestones(projectId); }, [projectId]);
  const ms = loadedFor === projectId ? milestones.filter((m) => m.id > 0) : [];
  const open = ms.filter((m) => !m.completed);
  const done = ms.filter((m) => m.completed);
  const known = value === null || ms.some((m) => m.id === value);
  return (
    <select aria-label={label} value={value ?? ''} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}>
      <option value="">No milestone</option>
      {!known && <option value={value!}>Milestone {value}</option>}
      {open.length > 0 && <optgroup label="Open">{open.map((m) => <option key={m.id} value={m.id}>{m.title} ({mediumDate(m.deadline)})</option>)}</optgroup>}
      {done.length > 0 && <optgroup label="Completed">{done.map((m) => <option key={m.id} value={m.id}>{m.title} ({mediumDate(m.deadline)})</option>)}</optgroup>}
    </select>
  );
}
