import { useCallback, useState } from 'react';
import { useUi } from '../stores/ui.ts';
import { setThemeChoice, themeChoice, type ThemeChoice } from '../lib/theme.ts';
import { Modal } from './Modal.tsx';

const CHOICES: [ThemeChoice, string, string][] = [
  ['system', 'Same as the system', 'Light or dark as your computer is set, and it changes with it.'],
  ['light', 'Light', ''],
  ['dark', 'Dark', ''],
];

/** Settings of this browser (issue #28): the colour theme. */
export function SettingsOverlay() {
  const setOverlay = useUi((s) => s.setOverlay);
  const close = useCallback(() => setOverlay(null), [setOverlay]);
  const [choice, setChoice] = useState<ThemeChoice>(themeChoice());
  const pick = (c: ThemeChoice) => { setChoice(c); setThemeChoice(c); };
  return (
    <Modal title="Settings" onClose={close} className="settings">
      <fieldset className="theme-choice">
        <legend>Appearance</legend>
        {CHOICES.map(([c, label, hint]) => (
          <label key={c} className="check">
            <input type="radio" name="theme" value={c} checked={choice === c} onChange={() => pick(c)} />
            <span>{label}{hint && <span className="muted small"> — {hint}</span>}</span>
          </label>
        ))}
      </fieldset>
      <p className="muted small">Kept in this browser on this computer.</p>
    </Modal>
  );
}
