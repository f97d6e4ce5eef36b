// Keyboard helpers shared by the app shell and the boards (no component imports: no cycles).

/** Input types whose keys are not text (a checkbox, a button): Ctrl+Z there is not the field's own. */
const NOT_TEXT = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'color', 'range']);

/** Is the keyboard focus in a place where letters are text (and Ctrl+Z undoes typing)? */
export const typing = (t: EventTarget | null): boolean => {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  if (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT') return true;
  return el.tagName === 'INPUT' && !NOT_TEXT.has((el as HTMLInputElement).type);
};

/** Controls that take typing or activation: a single-key shortcut never fires while one has the focus (issue #28). */
const CONTROL = 'input, textarea, select, button, a[href], summary, [contenteditable=""], [contenteditable="true"], '
  + '[role="button"], [role="link"], [role="checkbox"], [role="radio"], [role="switch"], [role="tab"], [role="option"], '
  + '[role="menuitem"], [role="combobox"], [role="textbox"], [role="slider"], [role="spinbutton"]';

/** Is the focus on a control (a field, a button, a link, …) rather than on the page, a heading or a card? */
export const onControl = (t: EventTarget | null): boolean => {
  const el = t as HTMLElement | null;
  if (!el || typeof el.matches !== 'function') return false;
  return el.isContentEditable || el.matches(CONTROL);
};
