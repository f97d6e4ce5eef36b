import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App.tsx';
import { parseHash, useSession } from './stores/session.ts';
import { UNAUTHORIZED, useUi } from './stores/ui.ts';
import './styles.css';

window.addEventListener('popstate', () => {
  if (useSession.getState().status === 'signedIn') {
    const r = parseHash(window.location.hash);
    if (r.projectId) useSession.getState().applyRoute(r);
  }
});

window.addEventListener(UNAUTHORIZED, () => {
  const s = useSession.getState();
  if (s.status === 'signedIn' && s.mode === 'browser') {
    s.signOut();
    useUi.getState().notify('error', 'Signed out', ['The local service no longer accepts your credentials. Please sign in again.']);
  }
});

createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>);
void useSession.getState().init();
