// A new tab of a signed-in user is signed in too (D95): sessionStorage is per tab, so a tab that has
// no credentials asks the other tabs of the same origin over a BroadcastChannel, and a signed-in tab
// hands over what it keeps in its own sessionStorage. Nothing more is written to disk than before.

const CHANNEL = 'bivouac-session';

type Msg = { kind: 'ask'; nonce: string } | { kind: 'give'; nonce: string; value: string } | { kind: 'signout' };

const channel = (): BroadcastChannel | null => {
  try { return typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(CHANNEL); } catch { return null; }
};

/** Ask the other tabs for the saved sign-in (null when none answers within `ms`). */
export function askOtherTabs(ms = 400): Promise<string | null> {
  const ch = channel();
  if (!ch) return Promise.resolve(null);
  const nonce = Math.random().toString(36).slice(2);
  return new Promise((resolve) => {
    const done = (v: string | null) => { clearTimeout(t); ch.close(); resolve(v); };
    const t = setTimeout(() => done(null), ms);
    ch.onmessage = (e: MessageEvent<Msg>) => { if (e.data.kind === 'give' && e.data.nonce === nonce) done(e.data.value); };
    ch.postMessage({ kind: 'ask', nonce } satisfies Msg);
  });
}

/**
 * Answer other tabs' questions with `current()` (the saved sign-in, or null when signed out), and
 * run `onSignOut` when another tab signs out. Returns a function that says "signed out" to the others.
 */
export function serveOtherTabs(current: () => string | null, onSignOut: () => void): { signedOut(): void } {
  const ch = channel();
  if (!ch) return { signedOut() { /* no channel */ } };
  ch.onmessage = (e: MessageEvent<Msg>) => {
    if (e.data.kind === 'ask') {
      const value = current();
      if (value) ch.postMessage({ kind: 'give', nonce: e.data.nonce, value } satisfies Msg);
    } else if (e.data.kind === 'signout') onSignOut();
  };
  return { signedOut() { ch.postMessage({ kind: 'signout' } satisfies Msg); } };
}
