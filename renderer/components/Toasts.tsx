import { useEffect, useRef } from 'react';
import { useUi } from '../stores/ui.ts';

export function Toasts() {
  const toasts = useUi((s) => s.toasts);
  const dismiss = useUi((s) => s.dismiss);
  const said = useUi((s) => s.announcement);
  const ref = useRef<HTMLDivElement>(null);
  // Toasts never hide content for good: the page gets room below it as tall as the stack (--toast-space),
  // so the end of a report or a grid can always be scrolled above them.
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const root = document.documentElement;
    const ro = new ResizeObserver(() => root.style.setProperty('--toast-space', `${el.offsetHeight ? el.offsetHeight + 24 : 0}px`));
    ro.observe(el);
    return () => { ro.disconnect(); root.style.removeProperty('--toast-space'); };
  }, []);
  return (
    <>
    <div className="sr-only" role="status" aria-live="polite" data-testid="announcer">{said ? <span key={said.id}>{said.text}</span> : null}</div>
    <div className="toasts" aria-live="assertive" ref={ref}>
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'}>
          <div>
            <strong>{t.title}</strong>
            {t.lines.length > 0 && <ul>{t.lines.map((l, i) => <li key={i}>{l}</li>)}</ul>}
          </div>
          {t.action && <button type="button" className="toast-action" onClick={t.action.run}>{t.action.label}</button>}
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => dismiss(t.id)}>×</button>
        </div>
      ))}
    </div>
    </>
  );
}
