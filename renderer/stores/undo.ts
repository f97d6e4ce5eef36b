// Undo for completing, deleting and moving items and lists (D93): each such change offers an "Undo"
// toast, and Ctrl+Z undoes the last one. An undo is itself a change: it is not offered again.

import { UNDO_TOAST_MS as UNDO_MS, useUi } from './ui.ts';

interface Undoable { toast: number; run: () => Promise<unknown> }
let last: Undoable | null = null;
let replaying = false;

/** Offer to undo a change that just succeeded. */
export function offerUndo(title: string, run: () => Promise<unknown>): void {
  if (replaying) return;
  const ui = useUi.getState();
  if (last) ui.dismiss(last.toast);
  const entry: Undoable = { toast: 0, run };
  ui.announce(`${title}. Control Z undoes it.`);
  entry.toast = ui.notify('info', title, [], { action: { label: 'Undo', run: () => { void undo(entry); } } });
  last = entry;
  setTimeout(() => { if (last === entry) last = null; }, UNDO_MS);
}

async function undo(entry: Undoable): Promise<boolean> {
  if (last === entry) last = null;
  useUi.getState().dismiss(entry.toast);
  replaying = true;
  try { await entry.run(); } finally { replaying = false; }
  useUi.getState().announce('Undone.');
  return true;
}

/** Ctrl+Z: undo the last change still offered. False when there is none. */
export function undoLast(): Promise<boolean> {
  return last ? undo(last) : Promise.resolve(false);
}

/** Is an undo offered (for tests and the help text)? */
export const canUndo = (): boolean => last !== null;
