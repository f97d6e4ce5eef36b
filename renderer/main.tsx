import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App.tsx';
import { parseHash, SESSION_KEY, useSession } from './stores/session.ts';
import { serveOtherTabs } from './stores/handover.ts';
import { startLive, stopLive } from './stores/live.ts';
import { UNAUTHORIZED, useUi } from './stores/ui.ts';
import './styles.css';
import { applyTheme, followSystemTheme } from './lib/theme.ts';

// The colour theme before the first paint, then following the system (issue #28).
applyTheme();
followSystemTheme();

window.addEventListener('popstate', () => {
  if (useSession.getState().status === 'signedIn') {
    const r = parseHash(window.location.hash);
    if (r.projectId) useSession.getState().applyRoute(r);
    // The Overview keeps the project chosen (the boards' tabs open it).
    else if (r.view === 'overview') useSession.getState().applyRoute({ ...r, projectId: useSession.getState().projectId });
  }
});

window.addEventListener(UNAUTHORIZED, () => {
  const s = useSession.getState();
  if (s.status === 'signedIn' && s.mode === 'browser') {
    s.signOut();
    useUi.getState().notify('error', 'Signed out', ['The local service no longer accepts your credentials. Please sign in again.']);
  }
});

// A new tab asks for the sign-in: a signed-in tab of the browser session hands it over (D95).
serveOtherTabs(() => {
  const s = useSession.getState();
  if (s.status !== 'signedIn' || s.mode !== 'browser') return null;
  try { return sessionStorage.getItem(SESSION_KEY); } catch { return null; }
}, () => { /* signing out stays per tab */ });

// Live data while signed in (D94).
useSession.subscribe((s, prev) => {
  if (s.status === prev.status && s.me?.id === prev.me?.id) return;
  if (s.status === 'signedIn') startLive();
  else stopLive();
});

createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>);
void useSession.getState().init();
