// Drafts: what a person typed and has not saved yet, per user and per record, in localStorage so that
// Esc, switching boards, opening another item or a reload never throw it away (D92).

import { useCallback, useState } from 'react';
import { useSession } from './session.ts';

const PREFIX = 'bivouac:draft:';

export const draftKey = (userId: number | string, record: string): string => `${PREFIX}${userId}:${record}`;

function storage(): Storage | null {
  try { return typeof localStorage === 'undefined' ? null : localStorage; } catch { return null; }
}

export function readDraft<T>(key: string): T | null {
  const raw = storage()?.getItem(key);
  if (!raw) return null;
  try { return JSON.parse(raw) as T; } catch { return null; }
}

/** Store a draft; null removes it. A full storage loses the draft, not the edit on screen. */
export function writeDraft<T>(key: string, value: T | null): void {
  const st = storage();
  if (!st) return;
  try {
    if (value === null) st.removeItem(key);
    else st.setItem(key, JSON.stringify(value));
  } catch { /* quota: the text stays on screen */ }
}

/**
 * The draft of one record for the signed-in user: null when there is none. Setting null (or the
 * saved value, which the caller maps to null) removes it.
 */
export function useDraft<T>(record: string): [T | null, (v: T | null) => void] {
  const user = useSession((s) => s.me?.id ?? 'anon');
  const key = draftKey(user, record);
  const [state, setState] = useState<{ key: string; value: T | null }>(() => ({ key, value: readDraft<T>(key) }));
  let current = state;
  if (state.key !== key) { current = { key, value: readDraft<T>(key) }; setState(current); }
  const set = useCallback((v: T | null) => { writeDraft(key, v); setState({ key, value: v }); }, [key]);
  return [current.value, set];
}
