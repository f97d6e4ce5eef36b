// First run (D96): on a data directory with no account, create your own account or load the demo.
// The sign-in page shows the demo's credentials while the demo account is what this service holds.

import { useEffect, useState, type FormEvent } from 'react';
import { api, errorMessages } from '../api.ts';
import { useSession } from '../stores/session.ts';
import { SignIn } from './SignIn.tsx';
import { progressText } from '../stores/sync.ts';
import { AcceptInvitation, parseInvitation } from './People.tsx';

export interface SetupStatus {
  empty: boolean; demo: { user: string } | null;
  /** False on a server that serves a network: no first run over HTTP, `bivouac setup` on its machine (D240). */
  form?: boolean;
  /** While a first-run connect clones (docs/setup.md): its progress, as /sync/status would say. */
  connecting?: { progress: { done: number; total: number } | null };
}

/** The clone's progress while POST /setup.json connects: GET /setup.json polled every `ms`. */
function useCloneProgress(active: boolean, ms = 400): { done: number; total: number } | null {
  const [p, setP] = useState<{ done: number; total: number } | null>(null);
  useEffect(() => {
    if (!active) { setP(null); return; }
    let live = true;
    const t = setInterval(() => {
      void setupStatus().then((s) => { if (live && s?.connecting) setP(s.connecting.progress); });
    }, ms);
    return () => { live = false; clearInterval(t); };
  }, [active, ms]);
  return p;
}

/** GET /setup.json (public): null when the service cannot tell (an older service): sign in as before. */
async function setupStatus(): Promise<SetupStatus | null> {
  try { return (await api.request<SetupStatus>('GET', '/setup.json')).data; } catch { return null; }
}

/** What a signed-out person sees: the first-run setup on an empty service, else the sign-in form. */
export function Welcome() {
  const [status, setStatus] = useState<SetupStatus | null | 'loading'>('loading');
  useEffect(() => { let live = true; void setupStatus().then((s) => { if (live) setStatus(s); }); return () => { live = false; }; }, []);
  if (status === 'loading') return <div className="splash" role="status">Connecting to the local service…</div>;
  const invitation = typeof window !== 'undefined' ? parseInvitation(window.location.hash) : null;
  if (invitation && !status?.empty) return <AcceptInvitation token={invitation.token} userName={invitation.userName} />;
  if (status?.empty && status.connecting) return <Cloning onDone={setStatus} />;
  if (status?.empty && status.form === false) return <TeamServerSetup />;
  if (status?.empty) return <FirstRun onDone={setStatus} />;
  return <SignIn demo={status?.demo ?? null} />;
}

/** An empty team server: its account is made on its machine, never from a browser (docs/setup.md). */
function TeamServerSetup() {
  return (
    <main className="signin first-run">
      <section aria-labelledby="team-setup-title">
        <h1 id="team-setup-title">This Bivouac server has no account yet</h1>
        <p className="hint">A server on a network is set up on its own machine, not from a browser. Its administrator runs <code>bivouac setup</code> there
          (see <code>bivouac --help</code>), then everyone signs in here.</p>
      </section>
    </main>
  );
}

/**
 * The service was started with a remote (`bivouac serve --remote`) and clones it in the background
 * (D253): its progress until the account is there (then sign in), or until the connect ends without one.
 */
function Cloning({ onDone, ms = 700 }: { onDone: (s: SetupStatus) => void; ms?: number }) {
  const [p, setP] = useState<{ done: number; total: number } | null>(null);
  useEffect(() => {
    let live = true;
    const t = setInterval(() => {
      void setupStatus().then((s) => {
        if (!live || !s) return;
        if (!s.empty || !s.connecting) onDone(s);
        else setP(s.connecting.progress);
      });
    }, ms);
    return () => { live = false; clearInterval(t); };
  }, [onDone, ms]);
  return (
    <main className="signin first-run">
      <div role="status" className="connecting">
        {p && p.total > 0
          ? <><progress aria-label="Copying your team's data" max={p.total} value={Math.min(p.done, p.total)} /> Copying your team's data: {progressText(p)}</>
          : <><progress aria-label="Copying your team's data" /> Connecting to your team server…</>}
      </div>
    </main>
  );
}

function FirstRun({ onDone }: { onDone: (s: SetupStatus) => void }) {
  const signIn = useSession((s) => s.signIn);
  const [f, setF] = useState({ firm_name: '', first_name: '', last_name: '', user_name: '', password: '', project_name: '' });
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });

  const send = async (body: unknown): Promise<SetupStatus | null> => {
    setBusy(true);
    setErrors([]);
    try {
      return (await api.request<SetupStatus>('POST', '/setup.json', body)).data;
    } catch (e) {
      setErrors(e instanceof Error && 'messages' in e ? [...(e as { messages: string[] }).messages] : [String(e)]);
      return null;
    } finally { setBusy(false); }
  };
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const s = await send({ setup: f });
    if (s && !(await signIn({ user: f.user_name.trim(), password: f.password }))) onDone(s);
  };
  const demo = async () => { const s = await send({ demo: true }); if (s) onDone(s); };
  const [mode, setMode] = useState<'create' | 'connect'>('create');
  if (mode === 'connect') return <ConnectFirstRun onDone={onDone} onBack={() => setMode('create')} />;

  return (
    <main className="signin first-run">
      <form onSubmit={create} aria-labelledby="setup-title" aria-busy={busy}>
        <div className="brand big" aria-hidden="true">
          <svg viewBox="0 0 24 24" width="36" height="36"><path d="M2 20 L12 4 L22 20 Z M9 20 L12 14 L15 20" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" /></svg>
        </div>
        <h1 id="setup-title">Welcome to Bivouac</h1>
        <p className="hint">This computer has no Bivouac account yet. Create yours — you will be its administrator and can add your team later — or look around in the demo first.</p>
        <label>Firm name<input value={f.firm_name} onChange={set('firm_name')} required autoFocus autoComplete="organization" placeholder="e.g. Summit Guides Ltd" /></label>
        <div className="row2">
          <label>First name<input value={f.first_name} onChange={set('first_name')} required autoComplete="given-name" /></label>
          <label>Last name<input value={f.last_name} onChange={set('last_name')} required autoComplete="family-name" /></label>
        </div>
        <label>User name<input value={f.user_name} onChange={set('user_name')} required autoComplete="username" /></label>
        <label>Password<input type="password" value={f.password} onChange={set('password')} required minLength={8} autoComplete="new-password" />
          <span className="hint">At least 8 characters.</span></label>
        <label>First project <span className="hint">(optional)</span><input value={f.project_name} onChange={set('project_name')} placeholder="First project" /></label>
        {errors.length > 0 && <ul className="error" role="alert">{errors.map((m) => <li key={m}>{m}</li>)}</ul>}
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Creating…' : 'Create my account'}</button>
        <div className="or"><span>or</span></div>
        <button type="button" onClick={() => setMode('connect')} disabled={busy}>Connect to a team server</button>
        <button type="button" onClick={() => void demo()} disabled={busy}>Load the demo account</button>
        <p className="hint">The demo is a small guiding firm with two projects, todo lists, messages and hours, to try Bivouac out.</p>
      </form>
    </main>
  );
}

/** First run, "connect to a team server": this directory becomes a replica of your account there (a clone). */
function ConnectFirstRun({ onDone, onBack }: { onDone: (s: SetupStatus) => void; onBack: () => void }) {
  const signIn = useSession((s) => s.signIn);
  const [f, setF] = useState({ url: '', user: '', password: '' });
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const progress = useCloneProgress(busy);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const connect = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setErrors([]);
    try {
      await api.setupConnect({ url: f.url.trim(), user: f.user.trim(), password: f.password });
    } catch (x) {
      setErrors(errorMessages(x));
      setBusy(false);
      return;
    }
    setBusy(false);
    if (!(await signIn({ user: f.user.trim(), password: f.password }))) onDone({ empty: false, demo: null });
  };
  return (
    <main className="signin first-run">
      <form onSubmit={connect} aria-labelledby="connect-title" aria-busy={busy}>
        <h1 id="connect-title">Connect to a team server</h1>
        <p className="hint">Bivouac copies what you can see on your team's server to this computer, then you work here, online or not, and it syncs by itself. Your password is checked there and never stored.</p>
        <label>Server URL<input type="url" value={f.url} onChange={set('url')} required autoFocus placeholder="https://team.example.com" /></label>
        <label>User name<input value={f.user} onChange={set('user')} required autoComplete="username" /></label>
        <label>Password<input type="password" value={f.password} onChange={set('password')} required autoComplete="current-password" /></label>
        {errors.length > 0 && <ul className="error" role="alert">{errors.map((m) => <li key={m}>{m}</li>)}</ul>}
        {busy && (
          <div role="status" className="connecting">
            {progress && progress.total > 0
              ? <><progress aria-label="Copying your team's data" max={progress.total} value={Math.min(progress.done, progress.total)} /> Copying your team's data: {progressText(progress)}</>
              : <><progress aria-label="Copying your team's data" /> Checking the server and copying your team's data…</>}
          </div>
        )}
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Connecting…' : 'Connect'}</button>
        <button type="button" className="link" onClick={onBack} disabled={busy}>Back</button>
      </form>
    </main>
  );
}
