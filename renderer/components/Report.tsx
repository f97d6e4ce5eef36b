import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { ReportFilters, TodoList } from '../../shared/client.ts';
import { api } from '../api.ts';
import { addDays, hoursText, longDate, mediumDate, monthName, shortDate, today, weekStart } from '../lib/dates.ts';
import { bucketFor, bucketHours, hoursPerDay, rangeBackwards, reportCsv, reportRows, totalsBy, type Bucket, type ReportRow } from '../lib/report.ts';
import { sumHours } from '../lib/week.ts';
import { dateParam, idParam, readFilters, writeFilters } from '../lib/url-filters.ts';
import { fullName, useSession } from '../stores/session.ts';
import { useTime } from '../stores/time.ts';
import { offLabel, usePeople } from '../stores/people.ts';
import { useReconnect } from '../stores/ui.ts';
import { useLiveChange } from '../stores/live.ts';

const PRESETS: { label: string; range: () => [string, string] }[] = [
  { label: 'This week', range: () => { const m = weekStart(today()); return [m, addDays(m, 6)]; } },
  { label: 'Last week', range: () => { const m = addDays(weekStart(today()), -7); return [m, addDays(m, 6)]; } },
  { label: 'Last 30 days', range: () => [addDays(today(), -29), today()] },
  { label: 'This year', range: () => [`${today().slice(0, 4)}-01-01`, `${today().slice(0, 4)}-12-31`] },
];

/** The report's filters from the URL (issue #28), or null when it names none. */
function urlReportFilters(): ReportFilters | null {
  const q = readFilters();
  if (!['from', 'to', 'person', 'project', 'company', 'item'].some((k) => q.has(k))) return null;
  const f: ReportFilters = { from: dateParam(q.get('from')), to: dateParam(q.get('to')), subject_id: idParam(q.get('person')),
    filter_project_id: idParam(q.get('project')), filter_company_id: idParam(q.get('company')), todo_item_id: idParam(q.get('item')) };
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as ReportFilters;
}

/** Put the filters of the report shown into the URL. */
const writeReportFilters = (f: ReportFilters): void => writeFilters('report', {
  from: f.from, to: f.to, person: f.subject_id, project: f.filter_project_id, company: f.filter_company_id, item: f.todo_item_id });

const sameFilters = (a: ReportFilters, b: ReportFilters): boolean => JSON.stringify(Object.entries(a).filter(([, v]) => v !== undefined).sort())
  === JSON.stringify(Object.entries(b).filter(([, v]) => v !== undefined).sort());

export function Report({ projectId }: { projectId: number }) {
  const { people, projects, companies } = useSession();
  const off = usePeople((x) => x.deactivated);
  const tm = useTime();
  // A link or a reload with filters in the URL shows that report; else the last one run.
  const [initial] = useState(() => urlReportFilters());
  const [f, setF] = useState<ReportFilters>(initial ?? tm.reportFilters);
  const [lists, setLists] = useState<TodoList[]>([]);
  const itemProject = f.filter_project_id || projectId;

  useReconnect(() => { if (useTime.getState().reportRan) void useTime.getState().runReport(); });
  useLiveChange(null, ['time_entries'], () => { if (useTime.getState().reportRan) void useTime.getState().runReport(); });
  useEffect(() => {
    const t = useTime.getState();
    if (initial && !sameFilters(initial, t.reportFilters)) { t.setReportFilters(initial); void t.runReport(); }
    else if (!t.reportRan && !t.reportLoading) void t.runReport();
    writeReportFilters(initial ?? t.reportFilters);
  // once, when the board opens
  }, []);
  useEffect(() => {
    let live = true;
    api.todoLists(itemProject).then((ls) => Promise.all(ls.map((l) => api.todoList(l.id)))).then((full) => {
      if (!live) return;
      setLists(full);
      const names: Record<number, string> = {};
      for (const l of full) for (const i of l.todo_items ?? []) names[i.id] = i.content;
      useTime.getState().learnItems(names);
    }).catch(() => { if (live) setLists([]); });
    return () => { live = false; };
  }, [itemProject]);

  const rows: ReportRow[] = useMemo(() => reportRows(tm.report, {
    project: (id) => projects.find((p) => p.id === id)?.name ?? `Project ${id}`,
    item: (id) => (id === null ? '' : tm.itemNames[id] ?? `Todo #${id}`),
    company: (id) => projects.find((p) => p.id === id)?.company.name ?? '',
  }), [tm.report, tm.itemNames, projects]);
  const ran = tm.reportFilters;
  const perDay = useMemo(() => hoursPerDay(rows, ran.from, ran.to), [rows, ran.from, ran.to]);
  // A long range is drawn by week or by month: 365 hair-thin bars say nothing.
  const unit = bucketFor(perDay.length);
  const bars = useMemo(() => bucketHours(perDay, unit), [perDay, unit]);
  const backwards = rangeBackwards(f.from, f.to);
  const total = sumHours(rows.map((r) => r.hours));

  const run = (e?: FormEvent) => {
    e?.preventDefault();
    if (rangeBackwards(f.from, f.to)) return; // said on the form; nothing is asked of the service
    tm.setReportFilters(f);
    writeReportFilters(f);
    void tm.runReport();
  };
  const num = (v: string) => (v ? Number(v) : undefined);
  const download = () => {
    const blob = new Blob([reportCsv(rows)], { type: 'text/csv;charset=utf-8' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = `bivouac-time-${ran.from || 'start'}-to-${ran.to || 'end'}.csv`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  return (
    <section className="board report" aria-labelledby="report-title">
      <div className="toolbar"><h1 id="report-title">Time report</h1></div>
      <form className="filters card-form" onSubmit={run} aria-label="Report filters">
        <label>From<input type="date" value={f.from ?? ''} onChange={(e) => setF({ ...f, from: e.target.value || undefined })} aria-invalid={backwards || undefined} aria-describedby={backwards ? 'range-error' : undefined} /></label>
        <label>To<input type="date" value={f.to ?? ''} onChange={(e) => setF({ ...f, to: e.target.value || undefined })} aria-invalid={backwards || undefined} aria-describedby={backwards ? 'range-error' : undefined} /></label>
        {backwards && <p className="error range-error" id="range-error" role="alert">“From” ({mediumDate(f.from!)}) is after “To” ({mediumDate(f.to!)}): swap them or pick another range.</p>}
        <label>Person
          <select value={f.subject_id ?? ''} onChange={(e) => setF({ ...f, subject_id: num(e.target.value) })}>
            <option value="">Everyone</option>
            {people.map((p) => <option key={p.id} value={p.id}>{offLabel(fullName(p), off.has(p.id))}</option>)}
          </select>
        </label>
        <label>Project
          <select value={f.filter_project_id ?? ''} onChange={(e) => setF({ ...f, filter_project_id: num(e.target.value), todo_item_id: undefined })}>
            <option value="">All projects</option>
            {projects.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
          </select>
        </label>
        <label>Client company
          <select value={f.filter_company_id ?? ''} onChange={(e) => setF({ ...f, filter_company_id: num(e.target.value) })}>
            <option value="">Any company</option>
            {companies.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
          </select>
        </label>
        <label>Todo item
          <select value={f.todo_item_id ?? ''} onChange={(e) => setF({ ...f, todo_item_id: num(e.target.value) })}>
            <option value="">Any item</option>
            {lists.map((l) => (l.todo_items?.length ? (
              <optgroup key={l.id} label={l.name}>{l.todo_items.map((i) => <option key={i.id} value={i.id}>{i.content}</option>)}</optgroup>
            ) : null))}
          </select>
        </label>
        <div className="presets" role="group" aria-label="Date range presets">
          {PRESETS.map((p) => <button key={p.label} type="button" className="small" onClick={() => { const [from, to] = p.range(); setF({ ...f, from, to }); }}>{p.label}</button>)}
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={tm.reportLoading || backwards}>{tm.reportLoading ? 'Running…' : 'Run report'}</button>
          <button type="button" onClick={download} disabled={!tm.reportRan || rows.length === 0}>Download CSV</button>
        </div>
      </form>

      {!tm.reportRan ? (
        <div className="empty"><p>Choose a date range and filters, then <strong>Run report</strong>. You can download exactly what it shows as CSV.</p></div>
      ) : rows.length === 0 ? (
        <div className="empty"><p>No time entries match these filters. Widen the date range, or log hours in the <strong>Timesheet</strong>.</p></div>
      ) : (
        <div className="report-body" aria-busy={tm.reportLoading}>
          <p className="summary" role="status"><strong data-report-total>{hoursText(total)} h</strong> in {rows.length} entr{rows.length === 1 ? 'y' : 'ies'}
            {ran.from || ran.to ? `, ${ran.from ? longDate(ran.from) : 'the beginning'} – ${ran.to ? longDate(ran.to) : 'today'}` : ''}</p>
          <BarChart days={bars} unit={unit} />
          <div className="totals">
            <Totals title="Per person" rows={totalsBy(rows, (r) => r.person)} />
            <Totals title="Per project" rows={totalsBy(rows, (r) => r.project)} />
            <Totals title="Per client company" rows={totalsBy(rows, (r) => r.company || '—')} />
            <Totals title="Per todo item" rows={totalsBy(rows, (r) => r.item || 'General (no todo item)')} />
            <Totals title="Per day" rows={totalsBy(rows, (r) => r.date).sort((a, b) => a.key.localeCompare(b.key))} format={mediumDate} />
          </div>
          {/* scrolls sideways on a phone: reachable from the keyboard (axe scrollable-region-focusable) */}
          <table className="entries" tabIndex={0}>
            <caption className="sr-only">Time entries</caption>
            <thead><tr><th scope="col">Date</th><th scope="col">Person</th><th scope="col">Project</th><th scope="col">Todo item</th><th scope="col">Description</th><th scope="col" className="num">Hours</th></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}><td><time dateTime={r.date}>{mediumDate(r.date)}</time></td><td>{r.person}</td><td>{r.project}</td><td>{r.item}</td><td>{r.description}</td><td className="num">{hoursText(r.hours)}</td></tr>
              ))}
            </tbody>
            <tfoot><tr><th scope="row" colSpan={5}>Total</th><td className="num">{hoursText(total)}</td></tr></tfoot>
          </table>
        </div>
      )}
    </section>
  );
}

function Totals({ title, rows, format = (k) => k }: { title: string; rows: { key: string; hours: number; count: number }[]; format?: (k: string) => string }) {
  return (
    <table className="mini" aria-label={title}>
      <caption>{title}</caption>
      <tbody>{rows.map((r) => <tr key={r.key}><th scope="row">{format(r.key)}</th><td className="num">{hoursText(r.hours)}</td></tr>)}</tbody>
    </table>
  );
}

/** Hours per day as an inline SVG bar chart (no chart library). */
export function BarChart({ days, unit = 'day' }: { days: { date: string; end?: string; hours: number }[]; unit?: Bucket }) {
  const per = unit === 'day' ? 'day' : unit === 'week' ? 'week' : 'month';
  const label = (d: { date: string }) => (unit === 'month' ? monthName(d.date) : shortDate(d.date));
  // Drawn at the figure's own width in pixels (issue #28): text keeps its size on a phone instead of
  // shrinking with a fixed 900-unit drawing, and the date labels are thinned to what fits.
  const ref = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(900);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const measure = () => { const cs = getComputedStyle(el); const w = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight); if (w > 0) setWidth(Math.round(w)); };
    measure();
    if (typeof ResizeObserver === 'undefined') return undefined;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [days.length > 0]);
  if (!days.length) return null;
  const W = Math.max(200, width), H = W < 520 ? 150 : 180, padL = 36, padB = 22, padT = 10;
  const CHAR = 6.8; // px per character of the 11 px axis text (a generous average)
  const max = Math.max(1, ...days.map((d) => d.hours));
  const step = niceStep(max);
  const top = Math.ceil(max / step) * step;
  const bw = (W - padL) / days.length;
  const y = (h: number) => padT + (H - padT - padB) * (1 - h / top);
  const labelW = Math.max(...days.map((d) => label(d).length)) * CHAR;
  const fit = Math.max(1, Math.floor((W - padL) / (labelW + 10)));
  const labelEvery = Math.max(1, Math.ceil(days.length / Math.min(14, fit)));
  const labelX = (i: number) => padL + i * bw + bw / 2;
  /** A date label is drawn on every labelEvery-th bar, when it fits inside the drawing. */
  const labelled = (i: number) => i % labelEvery === 0 && labelX(i) - labelW / 2 >= 0 && labelX(i) + labelW / 2 <= W;
  const ticks = Array.from({ length: Math.floor(top / step) + 1 }, (_, i) => i * step);
  return (
    <figure className="chart" ref={ref}>
      <svg viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`Hours per ${per}, ${days[0].date} to ${days[days.length - 1].end ?? days[days.length - 1].date}; most in a ${per}: ${hoursText(max)}`}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={padL} x2={W} y1={y(t)} y2={y(t)} className="gridline" />
            <text x={padL - 4} y={y(t) + 3} textAnchor="end" className="axis">{hoursText(t)}</text>
          </g>
        ))}
        {days.map((d, i) => (
          <g key={d.date}>
            {d.hours > 0 && <rect x={padL + i * bw + bw * 0.15} width={Math.max(1, bw * 0.7)} y={y(d.hours)} height={y(0) - y(d.hours)} className="bar"><title>{`${unit === 'day' ? mediumDate(d.date) : unit === 'week' ? `Week of ${mediumDate(d.date)}` : monthName(d.date)}: ${hoursText(d.hours)} h`}</title></rect>}
            {labelled(i) && <text x={labelX(i)} y={H - 6} textAnchor="middle" className="axis">{label(d)}</text>}
          </g>
        ))}
      </svg>
      <figcaption className="muted small">Hours per {per}</figcaption>
    </figure>
  );
}

function niceStep(max: number): number {
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const n = raw / mag;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
}
