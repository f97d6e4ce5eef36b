import { useState, type FormEvent } from 'react';
import { useSession } from '../stores/session.ts';

/**
 * The demo account's password, as the README documents it. GET /setup.json names the demo's user but never
 * carries a password (issue #25, D241); tests/electron/http/network-safety.test.ts checks this is the demo's.
 */
const DEMO_PASSWORD = 'bivouac';

export function SignIn({ demo = null }: { demo?: { user: string } | null }) {
  const signIn = useSession((s) => s.signIn);
  const error = useSession((s) => s.signInError);
  const [mode, setMode] = useState<'password' | 'token'>('password');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    await signIn(mode === 'password' ? { user: user.trim(), password } : { token: token.trim() });
    setBusy(false);
  };

  return (
    <main className="signin">
      <form onSubmit={submit} aria-labelledby="signin-title" aria-busy={busy}>
        <div className="brand big" aria-hidden="true">
          <svg viewBox="0 0 24 24" width="36" height="36"><path d="M2 20 L12 4 L22 20 Z M9 20 L12 14 L15 20" fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" /></svg>
        </div>
        <h1 id="signin-title">Sign in to Bivouac</h1>
        <p className="hint">Your projects live on this computer. Sign in with your account on the local service.</p>
        {demo && (
          <p className="demo-note" role="note">This is the <strong>demo account</strong>. Sign in as <code>{demo.user}</code> with the password <code>{DEMO_PASSWORD}</code>.
            <button type="button" className="link" onClick={() => { setMode('password'); setUser(demo.user); setPassword(DEMO_PASSWORD); }}>Fill it in</button></p>
        )}
        <div className="segmented" role="group" aria-label="Sign in with">
          <button type="button" aria-pressed={mode === 'password'} onClick={() => setMode('password')}>User name</button>
          <button type="button" aria-pressed={mode === 'token'} onClick={() => setMode('token')}>API token</button>
        </div>
        {mode === 'password' ? (
          <>
            <label>User name<input name="username" autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} required autoFocus /></label>
            <label>Password<input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required /></label>
          </>
        ) : (
          <label>API token<input name="token" autoComplete="off" spellCheck={false} value={token} onChange={(e) => setToken(e.target.value)} required autoFocus />
            <span className="hint">Run <code>bivouac token</code> to print yours.</span></label>
        )}
        {error && <p className="error" role="alert">{error}</p>}
        <button type="submit" className="primary" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
