import { TimerButton } from './Timer.tsx';
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { TodoList } from '../../shared/client.ts';
import { api } from '../api.ts';
import { dayOverflow, parseCellHours } from '../../shared/hours.ts';
import { dayName, hoursText, shortDate, today, weekDays } from '../lib/dates.ts';
import { buildGrid, rowKey, type Cell, type GridRow, type RowKey } from '../lib/week.ts';
import { fullName, useSession } from '../stores/session.ts';
import { useTime } from '../stores/time.ts';
import { loadDeactivated, offLabel, usePeople } from '../stores/people.ts';
import { useTodos } from '../stores/todos.ts';
import { fail, useNewRequest, useReconnect, useUi } from '../stores/ui.ts';
import { useLiveChange } from '../stores/live.ts';

export function Timesheet({ projectId }: { projectId: number }) {
  const tm = useTime();
  const { me, people, projects } = useSession();
  const todoLists = useTodos((s) => s.lists);
  const todoProject = useTodos((s) => s.projectId);
  const [adding, setAdding] = useState(false);
  /** The row the user just added (or picked again): focus goes to its first day, never to another row. */
  const [focusRow, setFocusRow] = useState<string | null>(null);

  useEffect(() => {
    if (!tm.personId && me) useTime.getState().setPerson(me.id);
    else void useTime.getState().loadWeek();
  }, [me, tm.personId]);
  useEffect(() => {
    if (todoProject === projectId) {
      const names: Record<number, string> = {};
      for (const l of todoLists) for (const i of l.items) names[i.id] = i.content;
      useTime.getState().learnItems(names);
    }
  }, [todoLists, todoProject, projectId]);
  useNewRequest(() => setAdding(true));
  useReconnect(() => { void useTime.getState().loadWeek(); });
  // The week shows all the person's projects: any project's time entries may be in it.
  useLiveChange(null, ['time_entries'], () => { void useTime.getState().loadWeek(); });
  const connection = useUi((s) => s.connection);
  const weekHeld = tm.loadedKey === `${tm.personId}:${tm.weekStart}`;

  const days = useMemo(() => weekDays(tm.weekStart), [tm.weekStart]);
  const projectName = (id: number) => projects.find((p) => p.id === id)?.name ?? `Project ${id}`;
  const grid = useMemo(() => buildGrid(tm.entries, days, tm.groupBy, tm.extraRows, (a, b) => {
    if (a.projectId !== b.projectId) {
      if (a.projectId === projectId) return -1;
      if (b.projectId === projectId) return 1;
      return projectName(a.projectId).localeCompare(projectName(b.projectId));
    }
    if (a.itemId === null) return -1;
    if (b.itemId === null) return 1;
    return (tm.itemNames[a.itemId] ?? '').localeCompare(tm.itemNames[b.itemId] ?? '');
  }), [tm.entries, days, tm.groupBy, tm.extraRows, tm.itemNames, projectId, projects]);
  const t = today();
  useEffect(() => {
    if (!focusRow) return;
    const el = document.querySelector<HTMLInputElement>(`.week-grid tr[data-row="${CSS.escape(focusRow)}"] input`);
    if (!el) return;
    setFocusRow(null);
    el.focus();
    el.select();
  }, [focusRow, grid]);

  const rowLabel = (r: GridRow) => tm.groupBy === 'project' || r.itemId === null
    ? { main: r.itemId === null && tm.groupBy === 'item' ? 'General (no todo item)' : projectName(r.projectId), sub: tm.groupBy === 'item' ? projectName(r.projectId) : '' }
    : { main: tm.itemNames[r.itemId] ?? `Todo #${r.itemId}`, sub: projectName(r.projectId) };
  const person = people.find((p) => p.id === tm.personId);
  const off = usePeople((x) => x.deactivated);
  useEffect(() => { void loadDeactivated(); }, []);

  return (
    <section className="board timesheet" aria-labelledby="time-title">
      <div className="toolbar">
        <h1 id="time-title">Timesheet</h1>
        <TimerButton projectId={projectId} label={projectName(projectId)} />
        <div className="segmented" role="group" aria-label="Week">
          <button type="button" onClick={() => tm.shiftWeek(-1)} aria-label="Previous week">←</button>
          <button type="button" onClick={() => tm.gotoWeek(t)}>This week</button>
          <button type="button" onClick={() => tm.shiftWeek(1)} aria-label="Next week">→</button>
        </div>
        <span className="week-label" aria-live="polite">Week of {shortDate(days[0])} – {shortDate(days[6])} {days[6].slice(0, 4)}</span>
        <label className="inline">Person
          <select value={tm.personId ?? ''} onChange={(e) => tm.setPerson(Number(e.target.value))}>
            {/* The week's new time is logged for this person: nobody deactivated is offered (D331); their past time is in the Report. */}
            {people.filter((p) => !off.has(p.id) || p.id === tm.personId).map((p) => <option key={p.id} value={p.id}>{offLabel(fullName(p), off.has(p.id))}{p.id === me?.id ? ' (you)' : ''}</option>)}
          </select>
        </label>
        <div className="segmented" role="group" aria-label="Rows">
          <button type="button" aria-pressed={tm.groupBy === 'item'} onClick={() => tm.setGroupBy('item')}>By todo item</button>
          <button type="button" aria-pressed={tm.groupBy === 'project'} onClick={() => tm.setGroupBy('project')}>By project</button>
        </div>
        <div className="spacer" />
        {!adding && <button type="button" className="primary" onClick={() => setAdding(true)} title="Add a row (n)">Add row</button>}
      </div>
      {adding && <AddRow projectId={projectId} byItem={tm.groupBy === 'item'} onDone={(added) => {
        setAdding(false);
        if (added) setFocusRow(rowKey(tm.groupBy, added.projectId, added.itemId));
      }} />}
      {!weekHeld && connection === 'offline' ? (
        <p className="unreachable" role="status">Can’t reach the service, so this week is not loaded. It is retried by itself; nothing is lost.</p>
      ) : tm.loading && !tm.loaded ? <p className="muted" role="status">Loading the week…</p> : (
        <div className="grid-wrap">
          <table className="week-grid" aria-label={`Hours of ${person ? fullName(person) : 'this person'}, week of ${days[0]}`}>
            <thead>
              <tr>
                <th scope="col" className="rowhead">{tm.groupBy === 'item' ? 'Todo item' : 'Project'}</th>
                {days.map((d) => <th key={d} scope="col" className={d === t ? 'today' : ''}><span className="dow">{dayName(d)}</span> {shortDate(d)}</th>)}
                <th scope="col" className="total">Total</th>
              </tr>
            </thead>
            <tbody>
              {grid.rows.length === 0 && (
                <tr><td colSpan={9} className="empty">
                  No hours this week. Click <strong>Add row</strong> to pick a project (and a todo item), then type hours in the day cells: <code>1.5</code> or <code>1:30</code>.
                </td></tr>
              )}
              {grid.rows.map((r, ri) => {
                const label = rowLabel(r);
                // Two rows of the same name (two projects' "General (no todo item)"): the cells' names say the project too (issue #28).
                const same = grid.rows.filter((o) => rowLabel(o).main === label.main).length > 1;
                const named = same && label.sub ? `${label.main}, ${label.sub}` : label.main;
                return (
                  <tr key={r.key} data-row={r.key}>
                    <th scope="row" className="rowhead"><span className="row-main">{label.main}</span>{label.sub && <span className="row-sub">{label.sub}</span>}</th>
                    {r.cells.map((c, ci) => <HoursCell key={c.date} row={r} cell={c} ri={ri} ci={ci} label={`${named}, ${dayName(c.date)} ${c.date}`} today={c.date === t} day={`${dayName(c.date)} ${shortDate(c.date)}`}
                      dayOthers={(Math.round(grid.dayTotals[ci] * 100) - Math.round(c.hours * 100)) / 100} />)}
                    <td className="total num" data-day="Total">{r.total ? hoursText(r.total) : ''}</td>
                  </tr>
                );
              })}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" className="rowhead">Total</th>
                {grid.dayTotals.map((h, i) => <td key={days[i]} className="num" data-day-total={days[i]} data-day={`${dayName(days[i])} ${shortDate(days[i])}`}>{h ? hoursText(h) : ''}</td>)}
                <td className="total num grand" data-week-total data-day="Week">{hoursText(grid.total)}</td>
              </tr>
            </tfoot>
          </table>
        </div>
      )}
      <p className="muted small">Type hours as <code>1.5</code>, <code>0.25</code> or <code>1:30</code>; empty or 0 deletes the entry. Enter saves, Esc undoes.</p>
    </section>
  );
}

function HoursCell({ row, cell, ri, ci, label, today: isToday, dayOthers, day }: { row: GridRow; cell: Cell; ri: number; ci: number; label: string; today: boolean; dayOthers: number; day: string }) {
  const setCell = useTime((s) => s.setCell);
  const shown = cell.hours ? hoursText(cell.hours) : '';
  const [text, setText] = useState(shown);
  /** Why the typed text cannot be saved: shown on the cell itself (not in a toast), until it is fixed or undone. */
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLInputElement>(null);
  /** The text being saved: Enter saves and moves on, and the blur that follows must not save it twice. */
  const saving = useRef<string | null>(null);
  useEffect(() => { if (document.activeElement !== ref.current && !error) setText(shown); }, [shown, error]);

  const commit = async () => {
    if (saving.current === text) return;
    const p = parseCellHours(text);
    const problem = !p.ok ? p.message : dayOverflow(p.value, dayOthers);
    if (problem !== null || !p.ok) { setError(problem); return; }
    setError(null);
    const h = p.value;
    if (Math.round(h * 100) === Math.round(cell.hours * 100)) { setText(shown); return; }
    const key: RowKey = { projectId: row.projectId, itemId: row.itemId };
    saving.current = text;
    const ok = await setCell(key, cell, h);
    saving.current = null;
    if (!ok) setText(shown);
  };
  const move = (dr: number, dc: number) => {
    const el = document.querySelector<HTMLInputElement>(`[data-cell="${ri + dr}:${ci + dc}"]`);
    el?.focus();
    el?.select();
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    const el = e.currentTarget;
    if (e.key === 'Enter') {
      e.preventDefault();
      // An invalid value keeps the focus on its cell, with the error shown there.
      const p = parseCellHours(text);
      if (!p.ok || dayOverflow(p.value, dayOthers)) { void commit(); return; }
      void commit();
      move(1, 0);
    }
    else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); setText(shown); setError(null); }
    else if (e.key === 'ArrowDown') { e.preventDefault(); move(1, 0); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); move(-1, 0); }
    else if (e.key === 'ArrowLeft' && el.selectionStart === 0 && el.selectionEnd === 0) { e.preventDefault(); move(0, -1); }
    else if (e.key === 'ArrowRight' && el.selectionStart === el.value.length) { e.preventDefault(); move(0, 1); }
  };
  const errId = `cell-err-${ri}-${ci}`;
  return (
    <td data-day={day} className={`cell${isToday ? ' today' : ''}${cell.entries.length > 1 ? ' multi' : ''}${error ? ' has-error' : ''}`}>
      <input ref={ref} data-cell={`${ri}:${ci}`} inputMode="decimal" aria-label={`Hours for ${label}`} aria-invalid={error ? true : undefined}
        aria-describedby={error ? errId : undefined}
        value={text} onChange={(e) => { setText(e.target.value); if (error) setError(null); }} onBlur={() => void commit()} onKeyDown={onKey} onFocus={(e) => e.currentTarget.select()}
        title={cell.entries.length > 1 ? `${cell.entries.length} entries: ${cell.entries.map((e) => `${hoursText(e.hours)} h ${e.description}`).join('; ')}` : cell.entries[0]?.description || undefined} />
      {error && <span className="cell-error" id={errId} role="alert">{error}</span>}
    </td>
  );
}

function AddRow({ projectId, byItem, onDone }: { projectId: number; byItem: boolean; onDone: (added?: RowKey) => void }) {
  const projects = useSession((s) => s.projects);
  const { addRow, learnItems } = useTime();
  const [pid, setPid] = useState(projectId);
  const [itemId, setItemId] = useState<string>('');
  const [lists, setLists] = useState<TodoList[] | null>(null);
  useEffect(() => {
    if (!byItem) return;
    let live = true;
    setLists(null); setItemId('');
    api.todoLists(pid).then((ls) => Promise.all(ls.map((l) => api.todoList(l.id)))).then((full) => {
      if (!live) return;
      setLists(full);
      const names: Record<number, string> = {};
      for (const l of full) for (const i of l.todo_items ?? []) names[i.id] = i.content;
      learnItems(names);
    }).catch((e) => fail('Could not load the todo items', e));
    return () => { live = false; };
  }, [pid, byItem, learnItems]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const row: RowKey = { projectId: pid, itemId: byItem && itemId ? Number(itemId) : null };
    addRow(row);
    onDone(row);
  };
  return (
    <form className="card-form add-row" onSubmit={submit} aria-label="Add a timesheet row" onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); onDone(); } }}>
      <label>Project
        <select value={pid} onChange={(e) => setPid(Number(e.target.value))} autoFocus>
          {projects.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
      </label>
      {byItem && (
        <label>Todo item
          <select value={itemId} onChange={(e) => setItemId(e.target.value)} disabled={!lists}>
            <option value="">{lists ? 'General (no todo item)' : 'Loading…'}</option>
            {lists?.map((l) => (l.todo_items?.length ? (
              <optgroup key={l.id} label={l.name}>{l.todo_items.map((i) => <option key={i.id} value={i.id}>{i.content}{i.completed ? ' ✓' : ''}</option>)}</optgroup>
            ) : null))}
          </select>
        </label>
      )}
      <div className="actions"><button type="submit" className="primary">Add row</button><button type="button" onClick={() => onDone()}>Cancel</button></div>
    </form>
  );
}

