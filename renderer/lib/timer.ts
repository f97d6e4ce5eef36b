// The timer (issue #28): what runs is kept in this browser's localStorage (it survives a reload and a
// restart of the app); stopping it proposes a time entry, its hours rounded as the user chooses.

export interface RunningTimer {
  /** Who started it (another person signing in on this browser does not see or stop it). */
  personId: number;
  projectId: number;
  todoItemId: number | null;
  /** What it runs on, as shown ("Call the hut" / the project's name). */
  label: string;
  /** Epoch milliseconds. */
  startedAt: number;
}

/** Rounding choices, in minutes (0: to the hundredth of an hour). Rounded up: a started step counts. */
export const ROUNDINGS = [0, 6, 15, 30] as const;
export type Rounding = (typeof ROUNDINGS)[number];

/** Hours of `ms` rounded up to the step (at least one step, or 0.01 h, for any time at all). */
export function roundHours(ms: number, step: Rounding): number {
  if (!(ms > 0)) return 0;
  const minutes = ms / 60_000;
  if (step === 0) return Math.max(0.01, Math.round((minutes / 60) * 100) / 100);
  const steps = Math.max(1, Math.ceil(minutes / step - 1e-9));
  return Math.round(((steps * step) / 60) * 100) / 100;
}

/** Elapsed time as h:mm:ss. */
export function elapsedText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

const int = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** A saved timer, checked (anything else, e.g. written by hand or by an older version, is null). */
export function readTimer(raw: string | null): RunningTimer | null {
  if (!raw) return null;
  let v: unknown;
  try { v = JSON.parse(raw); } catch { return null; }
  if (!v || typeof v !== 'object') return null;
  const t = v as Record<string, unknown>;
  if (!int(t.personId) || !int(t.projectId) || !int(t.startedAt) || typeof t.label !== 'string') return null;
  if (t.todoItemId !== null && !int(t.todoItemId)) return null;
  return { personId: t.personId, projectId: t.projectId, todoItemId: t.todoItemId as number | null, label: t.label.slice(0, 500), startedAt: t.startedAt };
}
