// The timer (issue #28, D282): start on a todo item or a project, the running timer in the header, and on
// stop a dialog with the proposed time entry (rounded as chosen), editable before it is saved.

import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api } from '../api.ts';
import { useSession } from '../stores/session.ts';
import { useTimer, type StoppedTimer } from '../stores/timer.ts';
import { announce, fail, track } from '../stores/ui.ts';
import { elapsedText, roundHours, ROUNDINGS, type Rounding } from '../lib/timer.ts';
import { today } from '../lib/dates.ts';
import { Modal } from './Modal.tsx';

const ROUND_LABEL: Record<Rounding, string> = { 0: 'Exact', 6: 'Up to 6 min', 15: 'Up to 15 min', 30: 'Up to 30 min' };

/** Start (or stop) the timer on a todo item or on a project. */
export function TimerButton({ projectId, todoItemId = null, label }: { projectId: number; todoItemId?: number | null; label: string }) {
  const me = useSession((s) => s.me);
  const running = useTimer((t) => t.running);
  const start = useTimer((t) => t.start);
  const stop = useTimer((t) => t.stop);
  if (!me) return null;
  const mine = running && running.personId === me.id && running.projectId === projectId && running.todoItemId === todoItemId;
  return mine
    ? <button type="button" className="timer-btn on" onClick={stop}>■ Stop timer</button>
    : <button type="button" className="timer-btn" onClick={() => { start({ personId: me.id, projectId, todoItemId, label }); announce(`Timer started on “${label}”.`); }}
      aria-label={`Start a timer on “${label}”`}>▶ Start timer</button>;
}

/** The running timer in the header: what it runs on, the time, Stop. */
export function HeaderTimer() {
  const me = useSession((s) => s.me);
  const running = useTimer((t) => t.running);
  const stop = useTimer((t) => t.stop);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return undefined;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [running]);
  if (!running || !me || running.personId !== me.id) return null;
  return (
    <span className="header-timer" title={`Timer on “${running.label}”`}>
      <span className="sr-only">Timer on “{running.label}”: </span>
      <time className="elapsed" aria-hidden="true">{elapsedText(now - running.startedAt)}</time>
      <button type="button" className="stop" onClick={stop} aria-label={`Stop the timer on “${running.label}”`}>■ Stop</button>
    </span>
  );
}

/** After Stop: the proposed entry, editable, saved as a time entry of the project (and item). */
export function TimerStopDialog() {
  const stopped = useTimer((t) => t.stopped);
  return stopped ? <StopDialog key={stopped.stoppedAt} stopped={stopped} /> : null;
}

function StopDialog({ stopped }: { stopped: StoppedTimer }) {
  const rounding = useTimer((t) => t.rounding);
  const setRounding = useTimer((t) => t.setRounding);
  const clear = useTimer((t) => t.clear);
  const resume = useTimer((t) => t.resume);
  const ms = stopped.stoppedAt - stopped.startedAt;
  const [hours, setHours] = useState(() => String(roundHours(ms, rounding)));
  const [date, setDate] = useState(() => today(new Date(stopped.startedAt)));
  const [description, setDescription] = useState('');
  const [saving, setSaving] = useState(false);
  const close = useCallback(() => resume(), [resume]);
  const round = (r: Rounding) => { setRounding(r); setHours(String(roundHours(ms, r))); };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    try {
      await track(api.createTimeEntry(stopped.projectId, { date, hours, description, ...(stopped.todoItemId ? { todo_item_id: stopped.todoItemId } : {}) }));
      clear();
      announce(`${hours} h saved on “${stopped.label}”.`);
    } catch (err) { fail('Could not save the time', err); } finally { setSaving(false); }
  };
  return (
    <Modal title="Save the time" onClose={close} className="timer-save">
      <p className="muted small">On “{stopped.label}”: {elapsedText(ms)} measured.</p>
      <form className="stack" onSubmit={(e) => void save(e)} aria-label="The time entry">
        <fieldset className="rounding">
          <legend>Rounding</legend>
          {ROUNDINGS.map((r) => (
            <label key={r} className="check"><input type="radio" name="rounding" checked={rounding === r} onChange={() => round(r)} /> {ROUND_LABEL[r]}</label>
          ))}
        </fieldset>
        <label>Hours<input inputMode="decimal" value={hours} onChange={(e) => setHours(e.target.value)} required /></label>
        <label>Date<input type="date" value={date} onChange={(e) => setDate(e.target.value)} required /></label>
        <label>Description<input value={description} onChange={(e) => setDescription(e.target.value)} /></label>
        <div className="actions">
          <button type="submit" className="primary" disabled={saving}>Save the entry</button>
          <button type="button" onClick={resume}>Keep running</button>
          <button type="button" className="danger-outline" onClick={() => { clear(); announce('Timer discarded.'); }}>Discard</button>
        </div>
      </form>
    </Modal>
  );
}
