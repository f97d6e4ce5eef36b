// Administration (issue #27, docs/api-extensions.md E2–E6): the People area (people by company, add / edit /
// deactivate, invitation links, password resets), projects (new, rename, status) with their members, and
// everyone's "My account". Every failure shows the server's own words (its 422 messages) in the form.

import { createContext, useCallback, useContext, useEffect, useRef, useState, type FormEvent, type MouseEvent } from 'react';
import type { Company, Person, Project, ProjectStatus, SyncStatus } from '../../shared/client.ts';
import { api, errorMessages } from '../api.ts';
import { fullName, useSession } from '../stores/session.ts';
import { announce, track, useUi } from '../stores/ui.ts';
import { useSync } from '../stores/sync.ts';
import { reloadDirectory, usePeople } from '../stores/people.ts';
import { Modal } from './Modal.tsx';
import { desktopBridge } from './Desktop.tsx';

/**
 * On a replica, the team server's address (D332): people, companies, members and
 * invitations are managed there (the service answers 409 here), so the People area shows them without the actions
 * and says where to go instead. null: this computer manages them.
 */
const ManagedAt = createContext<string | null>(null);
/**
 * A replica of a team server that takes administration (D338): the actions are offered, made here at once and sent
 * at the next sync; invitation links are the team server's (D339), so none is made here.
 */
const Queued = createContext(false);

/** Where this computer's People area sends its changes (D332, D338), from the sync status. */
export function administrationOf(st: SyncStatus | null | undefined): { managedAt: string | null; queued: boolean; plain: boolean } {
  const a = st?.administration;
  const remote = st?.remote?.url ?? null;
  // An older service without the field: a remote means "managed there", as before.
  if (!a) return { managedAt: remote, queued: false, plain: false };
  if (a.mode === 'queued') return { managedAt: null, queued: true, plain: false };
  if (a.mode === 'elsewhere') return { managedAt: a.at ?? remote ?? '', queued: false, plain: a.plain };
  return { managedAt: null, queued: false, plain: false };
}

/** The team server's address as a link target: http(s) only, without any user name or password in it; else null. */
export function teamServerLink(url: string): string | null {
  let u: URL;
  try { u = new URL(url); } catch { return null; }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.username = ''; u.password = '';
  return u.href;
}

/** Where people are managed, with a link that opens the team server in the browser (the desktop app: the system's). */
function TeamServerNote({ url, plain }: { url: string; plain: boolean }) {
  const href = teamServerLink(url);
  const open = (e: MouseEvent) => {
    const b = desktopBridge();
    if (!b || !href) return;
    e.preventDefault();
    void b.invoke('shell:open-external', href).catch(() => undefined);
  };
  return (
    <div className="notice team-server" role="note">
      {plain
        ? <p>This computer is a copy of {url}, which is not a Bivouac team server: people, companies, project members and invitations are managed there.
          {' '}To change them, sign in there as an administrator:</p>
        : <p>This computer is a copy of the team server: people, companies, project members and invitations are managed there.
          {' '}To change them, sign in to the team server as an administrator:</p>}
      <p className="team-server-link">{href
        ? <a href={href} target="_blank" rel="noopener noreferrer" onClick={open}>Open {href} in the browser</a>
        : <strong>{url}</strong>}</p>
      <p className="muted small">What is changed there comes here with the next sync. Projects (new, rename, status) can be changed here.</p>
    </div>
  );
}

/** On a replica of a team server (D338): where the changes go, and when. */
function QueuedNote({ offline }: { offline: boolean }) {
  return (
    <div className="notice team-server" role="note">
      <p>{offline
        ? 'The team server does not answer: what you change here is kept and goes up to it at the next sync.'
        : 'What you change here goes up to the team server at the next sync.'}
        {' '}If the team server refuses a change (a user name taken there meanwhile), it is undone here and listed with the sync’s refused changes.</p>
      <p className="muted small">Invitation links are made on the team server: add a person with a password here, or invite them there after the sync.</p>
    </div>
  );
}

/** The link an invited person opens: the sign-in page with the token (and their user name) in the hash. */
export function invitationLink(token: string, userName: string): string {
  const loc = typeof window !== 'undefined' ? window.location : { origin: '', pathname: '/' };
  return `${loc.origin}${loc.pathname}#/invite/${encodeURIComponent(token)}/${encodeURIComponent(userName)}`;
}
/** The token and user name of an invitation link's hash, or null. */
export function parseInvitation(hash: string): { token: string; userName: string } | null {
  const m = /^#?\/invite\/([^/]+)\/([^/?]*)/.exec(hash);
  if (!m) return null;
  try { return { token: decodeURIComponent(m[1]), userName: decodeURIComponent(m[2]) }; } catch { return null; }
}

function Errors({ list }: { list: string[] }) {
  // The alert is a wrapper: role="alert" on the list itself would take away its list semantics (axe: listitem).
  return list.length ? <div role="alert" className="form-errors-box"><ul className="error form-errors">{list.map((m) => <li key={m}>{m}</li>)}</ul></div> : null;
}

/** Run a request for a form: errors in words, busy while it runs; resolves to the result or null. */
function useAction(): { busy: boolean; errors: string[]; setErrors: (e: string[]) => void; run: <T>(p: () => Promise<T>) => Promise<T | null> } {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const run = useCallback(async <T,>(p: () => Promise<T>): Promise<T | null> => {
    setBusy(true); setErrors([]);
    try { return await track(p()); } catch (e) { setErrors(errorMessages(e)); return null; } finally { setBusy(false); }
  }, []);
  return { busy, errors, setErrors, run };
}

/** A field that shows a link to copy (the invitation). */
function InvitationBox({ person, link, onClose }: { person: Person; link: string; onClose: () => void }) {
  const ref = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => { ref.current?.focus(); ref.current?.select(); }, [link]);
  const copy = async () => {
    ref.current?.select();
    try { await navigator.clipboard.writeText(link); setCopied(true); announce('Invitation link copied'); } catch { setCopied(false); }
  };
  return (
    <div className="invitation" role="group" aria-label={`Invitation for ${fullName(person)}`}>
      <label>Invitation link for {fullName(person)}
        <input ref={ref} readOnly value={link} onFocus={(e) => e.target.select()} />
      </label>
      <p className="muted small">Send it to {person.first_name} yourself (e-mail, chat). It works once, for 7 days: they choose their password with it. A new link replaces this one.</p>
      <div className="row-actions">
        <button type="button" className="primary" onClick={() => void copy()}>{copied ? 'Copied' : 'Copy link'}</button>
        <button type="button" onClick={onClose}>Done</button>
      </div>
    </div>
  );
}

type PersonDraft = { first_name: string; last_name: string; user_name: string; email_address: string; company_id: string; administrator: boolean; password: string };

/** Add (no `person`) or edit a person. */
function PersonForm({ person, companies, companyId, onDone, onCancel }: {
  person: Person | null; companies: Company[]; companyId?: number; onDone: (p: Person, invitation: string | null) => void; onCancel: () => void;
}) {
  const firm = companies.find((c) => c.can_see_private);
  const [f, setF] = useState<PersonDraft>(() => person
    ? { first_name: person.first_name, last_name: person.last_name, user_name: person.user_name ?? '', email_address: person.email_address, company_id: String(person.company_id), administrator: person.administrator === true, password: '' }
    : { first_name: '', last_name: '', user_name: '', email_address: '', company_id: String(companyId ?? firm?.id ?? companies[0]?.id ?? ''), administrator: false, password: '' });
  const { busy, errors, run } = useAction();
  const queued = useContext(Queued);
  const set = (k: keyof PersonDraft) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const isFirm = companies.find((c) => c.id === Number(f.company_id))?.can_see_private === true;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = {
      first_name: f.first_name.trim(), last_name: f.last_name.trim(), user_name: f.user_name.trim(), email_address: f.email_address.trim(),
      company_id: Number(f.company_id), administrator: isFirm && f.administrator, password: f.password || undefined,
    };
    const r = await run(async () => {
      const p = person ? await api.updatePerson(person.id, input) : await api.createPerson(input);
      const inv = !person && !input.password && !queued ? await api.invite(p.id) : null;
      return { p, link: inv ? invitationLink(inv.token, p.user_name ?? input.user_name) : null };
    });
    if (r) onDone(r.p, r.link);
  };
  const id = person ? `edit-${person.id}` : 'new-person';
  return (
    <form className="admin-form" onSubmit={submit} aria-labelledby={`${id}-title`} aria-busy={busy}>
      <h3 id={`${id}-title`}>{person ? `Edit ${fullName(person)}` : 'Add a person'}</h3>
      <div className="row2">
        <label>First name<input value={f.first_name} onChange={set('first_name')} required autoFocus autoComplete="off" /></label>
        <label>Last name<input value={f.last_name} onChange={set('last_name')} required autoComplete="off" /></label>
      </div>
      <div className="row2">
        <label>User name<input value={f.user_name} onChange={set('user_name')} required autoComplete="off" /></label>
        <label>E-mail<input type="email" value={f.email_address} onChange={set('email_address')} required autoComplete="off" /></label>
      </div>
      <label>Company
        <select value={f.company_id} onChange={set('company_id')} required>
          {companies.map((c) => <option key={c.id} value={c.id}>{c.name}{c.can_see_private ? ' (your firm)' : ' (client)'}</option>)}
        </select>
      </label>
      {isFirm && (
        <label className="check"><input type="checkbox" checked={f.administrator} onChange={(e) => setF({ ...f, administrator: e.target.checked })} />
          <span>Administrator <span className="muted small">— manages people and projects</span></span></label>
      )}
      {!person && (<>
        <label>Password <span className="hint">(optional)</span>
          <input type="password" value={f.password} onChange={set('password')} minLength={8} autoComplete="new-password" aria-describedby={`${id}-pw-hint`} />
        </label>
        <span className="hint" id={`${id}-pw-hint`}>{queued
          ? 'At least 8 characters. It goes to the team server with the person and is kept nowhere here. Without one, invite them from the team server after the sync.'
          : 'At least 8 characters. Leave it empty to get an invitation link: they choose their own.'}</span>
      </>)}
      <Errors list={errors} />
      <div className="row-actions">
        <button type="submit" className="primary" disabled={busy}>{person ? 'Save' : f.password || queued ? 'Add person' : 'Add and get an invitation link'}</button>
        <button type="button" onClick={onCancel} disabled={busy}>Cancel</button>
      </div>
    </form>
  );
}

/** One person's row: edit, reset password (a new invitation link), deactivate (confirmed). */
function PersonRow({ p, companies, me, onInvitation }: { p: Person; companies: Company[]; me: Person | null; onInvitation: (p: Person, link: string) => void }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'confirm'>('view');
  const { busy, errors, run } = useAction();
  const rowRef = useRef<HTMLLIElement>(null);
  const off = usePeople((s) => s.deactivated.has(p.id));
  const managed = useContext(ManagedAt) !== null;
  const queued = useContext(Queued);
  const focusRow = () => requestAnimationFrame(() => (rowRef.current?.querySelector<HTMLElement>('button') ?? rowRef.current)?.focus());
  const reset = async () => {
    const inv = await run(() => api.invite(p.id));
    if (inv) onInvitation(p, invitationLink(inv.token, p.user_name ?? ''));
  };
  const deactivate = async () => {
    const ok = await run(async () => { await api.deactivatePerson(p.id); return true; });
    if (ok) {
      usePeople.getState().markDeactivated(p.id); setMode('view'); announce(`${fullName(p)} is deactivated`); focusRow();
      void reloadDirectory().catch(() => undefined);
    }
  };
  if (mode === 'edit') {
    return <li ref={rowRef}><PersonForm person={p} companies={companies} onCancel={() => { setMode('view'); focusRow(); }}
      onDone={(np) => { setMode('view'); void reloadDirectory(); announce(`Saved ${fullName(np)}`); focusRow(); }} /></li>;
  }
  return (
    <li ref={rowRef} className={`person-row${off ? ' off' : ''}`} tabIndex={-1}>
      <div className="who-line">
        <strong>{fullName(p)}</strong>
        {p.administrator && <span className="badge admin">administrator</span>}
        {p.id === me?.id && <span className="badge">you</span>}
        {off && <span className="badge off">deactivated</span>}
        <div className="muted small">{p.user_name ? `${p.user_name} · ` : ''}{p.email_address}</div>
        {off && <div className="muted small">Cannot sign in any more; what they wrote keeps their name.</div>}
      </div>
      {mode === 'confirm' ? (
        <div className="confirm" role="group" aria-label={`Deactivate ${fullName(p)}?`}>
          <p>Deactivate {fullName(p)}? They can no longer sign in; what they wrote stays, under their name.</p>
          <div className="row-actions">
            <button type="button" className="danger" onClick={() => void deactivate()} disabled={busy} autoFocus>Deactivate</button>
            <button type="button" onClick={() => { setMode('view'); focusRow(); }} disabled={busy}>Cancel</button>
          </div>
        </div>
      ) : !off && !managed && (
        <div className="row-actions">
          <button type="button" className="link" onClick={() => setMode('edit')} aria-label={`Edit ${fullName(p)}`}>Edit</button>
          {p.id !== me?.id && !queued && <button type="button" className="link" onClick={() => void reset()} disabled={busy} aria-label={`Reset the password of ${fullName(p)}`}>Reset password</button>}
          {p.id !== me?.id && <button type="button" className="link danger" onClick={() => setMode('confirm')} aria-label={`Deactivate ${fullName(p)}`}>Deactivate</button>}
        </div>
      )}
      <Errors list={errors} />
    </li>
  );
}

/** What a company's people see, in words (can-see-private is the firm's alone, D276). */
const seesLine = (c: Company): string => (c.can_see_private ? 'your firm · sees private records' : 'client · never sees private records');

/** A company's heading with its Edit form: the name; whether it sees private records is said, not changed (D276). */
function CompanyHeading({ c }: { c: Company }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(c.name);
  const { busy, errors, run } = useAction();
  const editRef = useRef<HTMLButtonElement>(null);
  const managed = useContext(ManagedAt) !== null;
  const back = () => requestAnimationFrame(() => editRef.current?.focus());
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const done = await run(() => api.updateCompany(c.id, { name: name.trim() }));
    if (done) { await reloadDirectory(); setEditing(false); announce(`Renamed the company to ${done.name}`); back(); }
  };
  if (editing) {
    return (
      <form className="admin-form" onSubmit={save} aria-labelledby={`company-${c.id}-edit`} aria-busy={busy}>
        <h3 id={`company-${c.id}-edit`}>Edit {c.name}</h3>
        <label>Company name<input value={name} onChange={(e) => setName(e.target.value)} required autoFocus autoComplete="organization" /></label>
        <p className="muted small">Private records: {c.can_see_private
          ? 'your firm’s people always see them (an administrator’s company).'
          : 'a client company never sees them. To let someone see them, add them to your firm instead.'}</p>
        <Errors list={errors} />
        <div className="row-actions">
          <button type="submit" className="primary" disabled={busy || !name.trim() || name.trim() === c.name}>Save</button>
          <button type="button" onClick={() => { setEditing(false); setName(c.name); back(); }} disabled={busy}>Cancel</button>
        </div>
      </form>
    );
  }
  return (
    <div className="company-head">
      <h3 id={`company-${c.id}`}>{c.name} <span className="muted small">{seesLine(c)}</span></h3>
      {!managed && <button ref={editRef} type="button" className="link" onClick={() => { setName(c.name); setEditing(true); }} aria-label={`Edit company ${c.name}`}>Edit company</button>}
    </div>
  );
}

function PeopleTab() {
  const people = useSession((s) => s.people);
  const companies = useSession((s) => s.companies);
  const me = useSession((s) => s.me);
  const off = usePeople((s) => s.deactivated);
  const managed = useContext(ManagedAt) !== null;
  const [adding, setAdding] = useState<{ companyId?: number } | null>(null);
  const [invitation, setInvitation] = useState<{ person: Person; link: string } | null>(null);
  const [companyName, setCompanyName] = useState('');
  const company = useAction();
  const addRef = useRef<HTMLButtonElement>(null);
  const addCompany = async (e: FormEvent) => {
    e.preventDefault();
    const c = await company.run(() => api.createCompany({ name: companyName.trim(), can_see_private: false }));
    if (c) { setCompanyName(''); await reloadDirectory(); announce(`Added the company ${c.name}. Add its people with “Add a person”.`); }
  };
  // Active people first in each company, the deactivated after them.
  const groups = companies.map((c) => [c, people.filter((p) => p.company_id === c.id)
    .sort((a, b) => Number(off.has(a.id)) - Number(off.has(b.id)))] as const);
  const clients = companies.filter((c) => !c.can_see_private).length;
  const open = (companyId?: number) => { setInvitation(null); setAdding({ companyId }); };
  return (
    <div className="admin-tab">
      {invitation && <InvitationBox person={invitation.person} link={invitation.link} onClose={() => { setInvitation(null); requestAnimationFrame(() => addRef.current?.focus()); }} />}
      {adding ? (
        <PersonForm person={null} companies={companies} companyId={adding.companyId} onCancel={() => { setAdding(null); requestAnimationFrame(() => addRef.current?.focus()); }}
          onDone={(p, link) => {
            setAdding(null);
            void reloadDirectory();
            announce(`Added ${fullName(p)}`);
            if (link) setInvitation({ person: p, link });
            else requestAnimationFrame(() => addRef.current?.focus());
          }} />
      ) : !managed && <button ref={addRef} type="button" className="primary" onClick={() => open()}>Add a person</button>}
      {people.length <= 1 && !adding && !managed && (
        <p className="empty">Only you so far. Add a person: with a password they can sign in at once; without one you get an invitation link to send them. Then add them to a project (Projects).</p>
      )}
      {groups.map(([c, ps]) => (
        <section key={c.id} className="company-group" aria-label={c.name}>
          <CompanyHeading c={c} />
          {ps.length ? <ul className="people-list">{ps.map((p) => <PersonRow key={p.id} p={p} companies={companies} me={me} onInvitation={(person, link) => setInvitation({ person, link })} />)}</ul>
            : (
              <p className="empty small">Nobody at {c.name} yet.{' '}
                {!adding && !managed && <button type="button" className="link" onClick={() => open(c.id)}>Add a person to {c.name}</button>}</p>
            )}
        </section>
      ))}
      {!managed && <form className="admin-form inline" onSubmit={addCompany}>
        <label>New client company<input value={companyName} onChange={(e) => setCompanyName(e.target.value)} required placeholder="e.g. Alpine Club" aria-describedby="new-company-hint" /></label>
        <button type="submit" disabled={company.busy}>Add company</button>
        <span className="hint muted small" id="new-company-hint">{clients
          ? 'A client’s people see only the projects they are members of, and never private records.'
          : 'Working for a client? Add their company: their people see only the projects you add them to, never private records.'}</span>
        <Errors list={company.errors} />
      </form>}
    </div>
  );
}

const STATUS_LABEL: Record<ProjectStatus, string> = { active: 'Active', on_hold: 'On hold', archived: 'Archived' };

function ProjectsTab() {
  const projects = useSession((s) => s.projects);
  const current = useSession((s) => s.projectId);
  const [selected, setSelected] = useState<number | null>(current ?? projects[0]?.id ?? null);
  const [name, setName] = useState('');
  const create = useAction();
  const project = projects.find((p) => p.id === selected) ?? null;
  const newRef = useRef<HTMLInputElement>(null);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const firm = useSession.getState().companies.find((c) => c.can_see_private);
    const p = await create.run(() => api.createProjectFor({ name: name.trim(), company_id: firm?.id }));
    if (p) {
      setName('');
      await useSession.getState().refreshProjects();
      setSelected(p.id);
      announce(`Created the project ${p.name}`);
      requestAnimationFrame(() => document.getElementById('member-add')?.focus());
    }
  };
  return (
    <div className="admin-tab">
      <form className="admin-form inline" onSubmit={add}>
        <label>New project<input ref={newRef} value={name} onChange={(e) => setName(e.target.value)} required placeholder="e.g. Matterhorn 2027" /></label>
        <button type="submit" className="primary" disabled={create.busy}>Create project</button>
        <Errors list={create.errors} />
      </form>
      {projects.length === 0 ? <p className="empty">No projects yet: name one above, then add its members.</p> : (
        <>
          <label>Project to edit
            <select aria-label="Project to edit" value={selected ?? ''} onChange={(e) => setSelected(Number(e.target.value))}>
              {projects.map((p) => <option key={p.id} value={p.id}>{p.name}{p.status !== 'active' ? ` (${STATUS_LABEL[p.status].toLowerCase()})` : ''}</option>)}
            </select>
          </label>
          {project && <ProjectEditor key={project.id} project={project} />}
        </>
      )}
    </div>
  );
}

function ProjectEditor({ project }: { project: Project }) {
  const people = useSession((s) => s.people);
  const companies = useSession((s) => s.companies);
  const off = usePeople((s) => s.deactivated);
  const [name, setName] = useState(project.name);
  const [members, setMembers] = useState<Person[] | null>(null);
  const [pick, setPick] = useState('');
  const rename = useAction();
  const status = useAction();
  const member = useAction();
  const pickRef = useRef<HTMLSelectElement>(null);
  const managed = useContext(ManagedAt) !== null;
  useEffect(() => {
    let live = true;
    void track(api.projectPeople(project.id)).then((m) => { if (live) setMembers(m); }, (e) => { if (live) member.setErrors(errorMessages(e)); });
    return () => { live = false; };
  }, [project.id, member.setErrors]);
  const afterMembers = async () => {
    const m = await track(api.projectPeople(project.id));
    setMembers(m);
    if (useSession.getState().projectId === project.id) useSession.setState({ members: m });
  };
  const doRename = async (e: FormEvent) => {
    e.preventDefault();
    const p = await rename.run(() => api.updateProject(project.id, { name: name.trim() }));
    if (p) { await useSession.getState().refreshProjects(); announce(`Renamed to ${p.name}`); }
  };
  const setStatus = async (s: ProjectStatus) => {
    const p = await status.run(() => api.updateProject(project.id, { status: s }));
    if (p) { await useSession.getState().refreshProjects(); announce(`${p.name} is ${STATUS_LABEL[s].toLowerCase()}`); }
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (!pick) { member.setErrors(['Pick a person to add']); return; }
    const p = await member.run(() => api.addMember(project.id, Number(pick)));
    if (p) { setPick(''); await afterMembers(); announce(`${fullName(p)} is a member of ${project.name}`); pickRef.current?.focus(); }
  };
  const remove = async (p: Person) => {
    const ok = await member.run(async () => { await api.removeMember(project.id, p.id); return true; });
    if (ok) { await afterMembers(); announce(`${fullName(p)} is no longer a member of ${project.name}`); pickRef.current?.focus(); }
  };
  const sees = (p: Person) => companies.find((c) => c.id === p.company_id)?.can_see_private === true;
  const candidates = people.filter((p) => !members?.some((m) => m.id === p.id) && !off.has(p.id));
  const archived = project.status === 'archived';
  return (
    <div className="project-editor">
      <form className="admin-form inline" onSubmit={doRename} aria-label="Rename the project">
        <label>Name<input value={name} onChange={(e) => setName(e.target.value)} required /></label>
        <button type="submit" disabled={rename.busy || name.trim() === project.name}>Rename</button>
        <Errors list={rename.errors} />
      </form>
      <div className="status-line">
        <span>Status: <strong>{STATUS_LABEL[project.status]}</strong>{archived && <span className="muted small"> — read-only, and out of the project menu’s active list</span>}</span>
        <div className="row-actions">
          {project.status !== 'active' && <button type="button" onClick={() => void setStatus('active')} disabled={status.busy}>Make active</button>}
          {project.status === 'active' && <button type="button" onClick={() => void setStatus('on_hold')} disabled={status.busy}>Put on hold</button>}
          {!archived && <button type="button" className="danger-outline" onClick={() => void setStatus('archived')} disabled={status.busy}>Archive</button>}
        </div>
        <Errors list={status.errors} />
      </div>
      <section aria-labelledby="members-title">
        <h3 id="members-title">Members</h3>
        <p className="muted small">A person sees this project only as a member (administrators see every project). People of your firm see its private records; clients never do.</p>
        {members === null ? <p className="muted" role="status">Loading…</p> : members.length === 0 ? <p className="empty">No members yet: add someone below.</p> : (
          <ul className="people-list">
            {members.map((m) => (
              <li key={m.id} className="person-row">
                <div className="who-line"><strong>{fullName(m)}</strong>
                  {sees(m) ? <span className="badge private">sees private records</span> : <span className="badge client">client</span>}
                  {off.has(m.id) && <span className="badge off">deactivated</span>}</div>
                {!managed && <button type="button" className="link danger" onClick={() => void remove(m)} disabled={member.busy} aria-label={`Remove ${fullName(m)} from ${project.name}`}>Remove</button>}
              </li>
            ))}
          </ul>
        )}
        {managed ? <p className="muted small">Members are added and removed on the team server.</p> : <form className="admin-form inline" onSubmit={add}>
          <label>Add a member
            <select id="member-add" ref={pickRef} value={pick} onChange={(e) => setPick(e.target.value)}>
              <option value="">{candidates.length ? 'Choose a person…' : 'Everyone is a member'}</option>
              {candidates.map((p) => <option key={p.id} value={p.id}>{fullName(p)}{sees(p) ? '' : ' (client)'}</option>)}
            </select>
          </label>
          <button type="submit" disabled={member.busy || !candidates.length}>Add</button>
          <Errors list={member.errors} />
        </form>}
      </section>
    </div>
  );
}

/** The administrators' People area: people (by company) and projects (with members). */
export function PeopleOverlay({ tab: initial }: { tab: 'people' | 'projects' }) {
  const setOverlay = useUi((s) => s.setOverlay);
  const close = useCallback(() => setOverlay(null), [setOverlay]);
  const [tab, setTab] = useState(initial);
  const status = useSync((x) => x.status);
  const { managedAt, queued, plain } = administrationOf(status);
  const offline = status?.state === 'offline';
  useEffect(() => { void reloadDirectory().catch(() => undefined); }, []);
  const tabs: [typeof tab, string][] = [['people', 'People'], ['projects', 'Projects']];
  return (
    <Modal title={tab === 'people' ? 'People' : 'Projects'} onClose={close} className="admin">
      <div className="segmented" role="group" aria-label="Show">
        {tabs.map(([t, label]) => <button key={t} type="button" aria-pressed={tab === t} onClick={() => setTab(t)}>{label}</button>)}
      </div>
      {managedAt !== null && <TeamServerNote url={managedAt} plain={plain} />}
      {queued && <QueuedNote offline={offline} />}
      <ManagedAt.Provider value={managedAt}><Queued.Provider value={queued}>{tab === 'people' ? <PeopleTab /> : <ProjectsTab />}</Queued.Provider></ManagedAt.Provider>
    </Modal>
  );
}

/** Everyone: their own name, e-mail (administrators) and password. */
export function AccountOverlay() {
  const setOverlay = useUi((s) => s.setOverlay);
  const close = useCallback(() => setOverlay(null), [setOverlay]);
  const me = useSession((s) => s.me);
  const admin = useSession((s) => s.admin);
  const [f, setF] = useState({ first_name: me?.first_name ?? '', last_name: me?.last_name ?? '', email_address: me?.email_address ?? '' });
  const [pw, setPw] = useState({ password: '', confirm: '' });
  const [saved, setSaved] = useState<string | null>(null);
  const details = useAction();
  const password = useAction();
  if (!me) return null;
  const saveDetails = async (e: FormEvent) => {
    e.preventDefault();
    const p = await details.run(() => api.updatePerson(me.id, { first_name: f.first_name.trim(), last_name: f.last_name.trim(), email_address: f.email_address.trim() }));
    if (p) { useSession.setState({ me: { ...me, ...p, token: me.token } }); setSaved('Your details are saved.'); }
  };
  const savePassword = async (e: FormEvent) => {
    e.preventDefault();
    if (pw.password !== pw.confirm) { password.setErrors(['The two passwords are not the same']); return; }
    const ok = await password.run(async () => { await api.updatePerson(me.id, { password: pw.password }); return true; });
    if (ok) { setPw({ password: '', confirm: '' }); setSaved('Your password is changed: use it the next time you sign in.'); }
  };
  return (
    <Modal title="My account" onClose={close} className="account">
      {saved && <p className="notice" role="status">{saved}</p>}
      <form className="admin-form" onSubmit={saveDetails} aria-labelledby="acct-details">
        <h3 id="acct-details">Name and e-mail</h3>
        <div className="row2">
          <label>First name<input value={f.first_name} onChange={(e) => setF({ ...f, first_name: e.target.value })} readOnly={!admin} required autoComplete="given-name" /></label>
          <label>Last name<input value={f.last_name} onChange={(e) => setF({ ...f, last_name: e.target.value })} readOnly={!admin} required autoComplete="family-name" /></label>
        </div>
        <label>E-mail<input type="email" value={f.email_address} onChange={(e) => setF({ ...f, email_address: e.target.value })} readOnly={!admin} required autoComplete="email" /></label>
        {admin ? <button type="submit" disabled={details.busy}>Save</button>
          : <p className="muted small">Your name and e-mail are changed by an administrator of your account.</p>}
        <Errors list={details.errors} />
      </form>
      <form className="admin-form" onSubmit={savePassword} aria-labelledby="acct-password">
        <h3 id="acct-password">Password</h3>
        <p className="muted small">User name: <strong>{me.user_name}</strong></p>
        <label>New password<input type="password" value={pw.password} onChange={(e) => setPw({ ...pw, password: e.target.value })} required minLength={8} autoComplete="new-password" aria-describedby="acct-pw-hint" /></label>
        <span className="hint" id="acct-pw-hint">At least 8 characters, not your user name.</span>
        <label>New password again<input type="password" value={pw.confirm} onChange={(e) => setPw({ ...pw, confirm: e.target.value })} required autoComplete="new-password" /></label>
        <button type="submit" className="primary" disabled={password.busy}>Change password</button>
        <Errors list={password.errors} />
      </form>
    </Modal>
  );
}

/** The page an invitation link opens: the invited person chooses a password, then is signed in. */
export function AcceptInvitation({ token, userName }: { token: string; userName: string }) {
  const signIn = useSession((s) => s.signIn);
  const [f, setF] = useState({ user: userName, password: '', confirm: '' });
  const { busy, errors, setErrors, run } = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (f.password !== f.confirm) { setErrors(['The two passwords are not the same']); return; }
    const ok = await run(async () => { await api.acceptInvitation(token, f.user.trim(), f.password); return true; });
    if (!ok) return;
    window.history.replaceState(null, '', '#/');
    await signIn({ user: f.user.trim(), password: f.password });
  };
  return (
    <main className="signin first-run">
      <form onSubmit={submit} aria-labelledby="invite-title" aria-busy={busy}>
        <h1 id="invite-title">Welcome to your team on Bivouac</h1>
        <p className="hint">You were invited. Choose your password: you sign in with your user name and it from now on.</p>
        <label>User name<input value={f.user} onChange={(e) => setF({ ...f, user: e.target.value })} required autoComplete="username" /></label>
        <label>Password<input type="password" value={f.password} onChange={(e) => setF({ ...f, password: e.target.value })} required minLength={8} autoFocus autoComplete="new-password" aria-describedby="invite-pw-hint" /></label>
        <span className="hint" id="invite-pw-hint">At least 8 characters, not your user name.</span>
        <label>Password again<input type="password" value={f.confirm} onChange={(e) => setF({ ...f, confirm: e.target.value })} required autoComplete="new-password" /></label>
        <Errors list={errors} />
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Setting…' : 'Set my password and sign in'}</button>
        <button type="button" className="link" onClick={() => { window.location.hash = '#/'; window.location.reload(); }}>I already have a password: sign in</button>
      </form>
    </main>
  );
}
