// Keyboard helpers shared by the app shell and the boards (no component imports: no cycles).

/** Is the keyboard focus in a place where letters are text? */
export const typing = (t: EventTarget | null): boolean => {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
};
