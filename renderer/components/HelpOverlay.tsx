import { useCallback } from 'react';
import { useUi } from '../stores/ui.ts';
import { Modal } from './Modal.tsx';

export const SHORTCUTS: { group: string; keys: [string, string][] }[] = [
  { group: 'Everywhere', keys: [['?', 'Show this list'], ['/', 'Search messages and todos of all your projects'], ['0', 'Overview: what happened lately in all your projects'], ['1 – 6', 'Todos, Messages, Milestones, Timesheet, Time report, My work'],
    ['n', 'New list / message / milestone / timesheet row'], ['Esc', 'Close a dialog or panel']] },
  { group: 'Todo board (a card has focus)', keys: [['x or Space', 'Complete or reopen the item'], ['Enter', 'Open the item (edit, comments)'],
    ['Alt + ↑ / ↓', 'Move the item up or down'], ['Alt + ← / →', 'Move the item to the previous or next list'], ['↑ / ↓', 'Focus the previous or next card']] },
  { group: 'Todo board (a list title has focus)', keys: [['Alt + ← / →', 'Move the list left or right']] },
  { group: 'Timesheet', keys: [['Enter', 'Save the hours of a cell'], ['Esc', 'Undo the edit of a cell'], ['↑ ↓ ← →', 'Move between cells (at the start or end of the text)']] },
];

export function HelpOverlay() {
  const setOverlay = useUi((s) => s.setOverlay);
  const close = useCallback(() => setOverlay(null), [setOverlay]);
  return (
    <Modal title="Keyboard shortcuts" onClose={close} className="help">
      {SHORTCUTS.map((g) => (
        <section key={g.group}>
          <h3>{g.group}</h3>
          <dl>{g.keys.map(([k, d]) => <div key={k}><dt><kbd>{k}</kbd></dt><dd>{d}</dd></div>)}</dl>
        </section>
      ))}
    </Modal>
  );
}
