// First run (D96): on a data directory with no account, create your own account or load the demo.
// The sign-in page shows the demo's credentials while the demo account is what this service holds.

import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api.ts';
import { useSession } from '../stores/session.ts';
import { SignIn } from './SignIn.tsx';

export interface SetupStatus { empty: boolean; demo: { user: string; password: string } | null }

/** GET /setup.json (public): null when the service cannot tell (an older service): sign in as before. */
async function setupStatus(): Promise<SetupStatus | null> {
  try { return (await api.request<SetupStatus>('GET', '/setup.json')).data; } catch { return null; }
}

/** What a signed-out person sees: the first-run setup on an empty service, else the sign-in form. */
export function Welcome() {
  const [status, setStatus] = useState<SetupStatus | null | 'loading'>('loading');
  useEffect(() => { let live = true; void setupStatus().then((s) => { if (live) setStatus(s); }); return () => { live = false; }; }, []);
  if (status === 'loading') return <div className="splash" role="status">Connecting to the local service…</div>;
  if (status?.empty) return <FirstRun onDone={setStatus} />;
  return <SignIn demo={status?.demo ?? null} />;
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
        <button type="button" onClick={() => void demo()} disabled={busy}>Load the demo account</button>
        <p className="hint">The demo is a small guiding firm with two projects, todo lists, messages and hours, to try Bivouac out.</p>
      </form>
    </main>
  );
}
