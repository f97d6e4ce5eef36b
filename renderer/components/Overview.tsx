// The Overview (issue #27, D302): the first page after sign-in. What happened lately across every project the
// person sees, newest first, grouped by day then project, each event linked to its place; "New" marks what
// came since the last visit (kept per person in this browser). One request a page (`GET /overview.json`),
// answered by the local service: it works offline on a replica. Live: the first pages are read again on every
// change of the live stream.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { OverviewEvent } from '../../shared/client.ts';
import { api } from '../api.ts';
import { useSession } from '../stores/session.ts';
import { fail, track, useReconnect } from '../stores/ui.ts';
import { useLiveChange } from '../stores/live.ts';
import { actionOf, eventKey, groupEvents, isNew, placeOf, readSeen, relativeDay, writeSeen } from '../lib/overview.ts';
import { longDate, today } from '../lib/dates.ts';

const PAGE = 30;
const MAX_PAGE = 100;
/** What the Overview shows; a live change re-reads it. */
const WATCHED = ['posts', 'comments', 'todo_items', 'todo_lists', 'milestones', 'time_entries', 'projects', 'project_members', 'people'];
const timeOf = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });

export function Overview() {
  const me = useSession((s) => s.me);
  const [events, setEvents] = useState<OverviewEvent[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [more, setMore] = useState(false);
  // The last visit, read once on arrival: what is newer is marked for the whole visit.
  const [lastSeen] = useState<string | null>(() => (me ? readSeen(me.id) : null));
  const loaded = useRef(0);
  const seq = useRef(0);

  const remember = useCallback((evs: readonly OverviewEvent[]) => {
    if (me && evs.length) writeSeen(me.id, evs[0].at);
  }, [me]);

  /** The first pages again, as many events as are shown (at most 100; beyond, the rest is dropped). */
  const load = useCallback(async () => {
    const mine = ++seq.current;
    const limit = Math.min(MAX_PAGE, Math.max(PAGE, loaded.current));
    try {
      const page = await track(api.overview({ limit }));
      if (mine !== seq.current) return;
      loaded.current = page.events.length;
      setEvents(page.events);
      setNext(page.next_before);
      remember(page.events);
    } catch (e) { if (mine === seq.current) fail('Could not load the overview', e); }
  }, [remember]);

  const loadMore = async () => {
    if (!next || more) return;
    const mine = ++seq.current;
    setMore(true);
    try {
      const page = await track(api.overview({ before: next, limit: PAGE }));
      if (mine !== seq.current) return;
      setEvents((evs) => {
        const have = new Set((evs ?? []).map(eventKey));
        const all = [...(evs ?? []), ...page.events.filter((e) => !have.has(eventKey(e)))];
        loaded.current = all.length;
        return all;
      });
      setNext(page.next_before);
    } catch (e) { if (mine === seq.current) fail('Could not load older events', e); } finally { setMore(false); }
  };

  useEffect(() => { void load(); }, [load]);
  useLiveChange(null, WATCHED, () => { void load(); });
  useReconnect(() => { void load(); });

  const groups = events ? groupEvents(events) : null;
  const now = today();

  return (
    <div className="board overview">
      <div className="toolbar">
        <h1 id="overview-title">Overview</h1>
        <p className="muted overview-sub">What happened lately in your projects, newest first.</p>
      </div>
      {!groups ? <p className="muted" role="status">Loading…</p>
        : groups.length === 0 ? (
          <div className="empty big">
            <h2>Nothing has happened yet</h2>
            <p>Messages, comments, to-dos, milestones and time logged in your projects show here as they happen. Open a project in the header to start.</p>
          </div>
        ) : (
          <>
            {groups.map((d) => {
              const id = `overview-day-${d.day}`;
              const rel = relativeDay(d.day, now);
              return (
                <section key={d.day} className="overview-day" aria-labelledby={id}>
                  <h2 id={id}>{rel ? <>{rel} <span className="muted">{longDate(d.day)}</span></> : longDate(d.day)}</h2>
                  {d.projects.map((p) => (
                    <div key={p.projectId} className="overview-project">
                      <h3><a href={`#/projects/${p.projectId}/todos`}>{p.projectName || `Project ${p.projectId}`}</a></h3>
                      <ul className="overview-events">
                        {p.events.map((e) => <EventRow key={eventKey(e)} e={e} fresh={isNew(e, lastSeen)} />)}
                      </ul>
                    </div>
                  ))}
                </section>
              );
            })}
            {next ? (
              <button type="button" className="overview-more" onClick={() => void loadMore()} disabled={more}>
                {more ? 'Loading…' : 'Load more'}
              </button>
            ) : <p className="muted overview-end">That is everything.</p>}
          </>
        )}
    </div>
  );
}

function EventRow({ e, fresh }: { e: OverviewEvent; fresh: boolean }) {
  const title = e.title?.trim() || (e.kind === 'time-entry' ? 'time entry' : 'untitled');
  return (
    <li className={`overview-event kind-${e.kind}${fresh ? ' new' : ''}`}>
      <span className="overview-what">
        {fresh && <span className="badge new">New</span>}
        <strong>{e.person_name || 'Someone'}</strong> {actionOf(e)}{' '}
        <a href={placeOf(e)}>{e.kind === 'time-entry' && !e.title?.trim() ? 'on the timesheet' : `“${title}”`}</a>
        {e.kind === 'todo-item' && e.excerpt ? <span className="muted"> in {e.excerpt}</span> : null}
      </span>
      {e.kind === 'comment' && e.excerpt ? <span className="overview-excerpt">{e.excerpt}</span> : null}
      {e.kind !== 'time-entry' && <time className="muted overview-time" dateTime={e.at}>{timeOf.format(new Date(e.at))}</time>}
    </li>
  );
}
