import { beforeEach, describe, expect, it } from 'vitest';
import { useUi } from '../../../renderer/stores/ui.ts';
import { canUndo, offerUndo, undoLast } from '../../../renderer/stores/undo.ts';

beforeEach(() => { useUi.setState({ toasts: [] }); });

describe('undo', () => {
  it('Ctrl+Z undoes the last offered change once, and the undo is not offered again', async () => {
    const ran: string[] = [];
    offerUndo('Moved “A”', async () => { ran.push('a'); });
    offerUndo('Completed “B”', async () => { ran.push('b'); offerUndo('should not appear', async () => { ran.push('x'); }); });
    expect(useUi.getState().toasts.map((t) => t.title)).toEqual(['Completed “B”']);
    expect(await undoLast()).toBe(true);
    expect(ran).toEqual(['b']);
    expect(canUndo()).toBe(false);
    expect(await undoLast()).toBe(false);
    expect(useUi.getState().toasts).toEqual([]);
  });
  it('the toast button runs the same undo', async () => {
    let n = 0;
    offerUndo('Deleted “C”', async () => { n++; });
    useUi.getState().toasts[0].action!.run();
    await Promise.resolve();
    expect(n).toBe(1);
    expect(canUndo()).toBe(false);
  });
});
