import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App.tsx';
import { parseHash, useSession } from './stores/session.ts';
import './styles.css';

window.addEventListener('popstate', () => {
  if (useSession.getState().status === 'signedIn') {
    const r = parseHash(window.location.hash);
    if (r.projectId) useSession.getState().applyRoute(r);
  }
});

createRoot(document.getElementById('root')!).render(<StrictMode><App /></StrictMode>);
void useSession.getState().init();
