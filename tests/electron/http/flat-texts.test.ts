// Texts kept to be written again (a list's record texts, D219; the response cache's bodies, D213) must be
// flat strings, not ropes: a rope of a record's ~50 pieces is walked piece by piece at every answer that
// includes it, and with many records kept those pieces are cold in memory (the 400 lists read in turn
// spent a quarter of their CPU in V8's WriteToFlat2). Whether a string is flat is V8's business and shows
// only through its natives syntax, so the check runs in a child Node with `--allow-natives-syntax`, after
// enough texts that the code keeping them is optimized: `charCodeAt(0)` flattened a rope only until then.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const mod = (p: string): string => JSON.stringify(pathToFileURL(join(ROOT, p)).href);

/** Run `body` as a module in a child Node with V8's natives syntax; its last line of output, parsed. */
function natives(body: string): Record<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'bivouac-flat-'));
  try {
    const file = join(dir, 'check.mjs');
    writeFileSync(file, body);
    const r = spawnSync(process.execPath, ['--allow-natives-syntax', file], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('texts kept to be written again are flat', { timeout: 90_000 }, () => {
  it('flat() makes a rope flat, in every tier of the code that calls it', () => {
    const out = natives(`
      import { flat } from ${mod('shared/codec/flat.ts')};
      const rope = (i) => { let s = '  <todo-item>\\n'; for (let k = 0; k < 12; k++) s += '    <f' + k + '>' + (i * 13 + k) + '</f' + k + '>\\n'; return s + '  </todo-item>\\n'; };
      let ropes = 0, notFlat = 0, changed = 0;
      for (let i = 0; i < 30000; i++) {
        const t = rope(i);
        if (!%StringIsFlat(t)) ropes++;
        const f = flat(t);
        if (!%StringIsFlat(f)) notFlat++;
        if (f !== t) changed++;
      }
      const wide = flat('é' + rope(1) + '\\u{1F600}');
      // Replacing RegExp.prototype.exec after the module loaded does not turn it off; no text stays in RegExp.input.
      const exec = RegExp.prototype.exec;
      RegExp.prototype.exec = function () { return null; };
      const after = flat(rope(2));
      RegExp.prototype.exec = exec;
      console.log(JSON.stringify({ ropes, notFlat, changed, wide: %StringIsFlat(wide) ? 1 : 0, wideSame: wide === 'é' + rope(1) + '\\u{1F600}' ? 1 : 0,
        afterExec: %StringIsFlat(after) ? 1 : 0, input: RegExp.input.length }));
    `);
    expect(out.ropes).toBe(30000); // the check itself can tell a rope
    expect(out).toMatchObject({ notFlat: 0, changed: 0, wide: 1, wideSame: 1, afterExec: 1, input: 0 });
  });

  it("a list's kept record texts are flat", () => {
    const out = natives(`
      import { RESOURCES } from ${mod('shared/registry.ts')};
      import { RecordTexts, xmlMany, xmlOne } from ${mod('shared/codec/out.ts')};
      const texts = new RecordTexts(64 << 20);
      const view = { callerId: 1, firm: true, admin: true };
      const row = (id) => ({ id, content: 'Item ' + id + ' of the list', position: id % 50, completed: id % 3 === 0 ? 1 : 0,
        todo_list_id: 1 + Math.floor(id / 50), comments_count: id % 4, creator_id: 3, creator_name: 'Ada Pike',
        created_at: '2026-11-17T06:22:59Z', updated_at: '2026-11-17T06:22:59Z', due_at: null, commented_at: null });
      // 400 lists of 50 records, read twice (the second reading uses the kept texts), then records read alone.
      for (let round = 0; round < 2; round++)
        for (let l = 0; l < 400; l++) xmlMany(RESOURCES.todoItem, Array.from({ length: 50 }, (_, k) => row(l * 50 + k)), view, {}, undefined, texts);
      for (let round = 0; round < 2; round++) for (let id = 30000; id < 32000; id++) xmlOne(RESOURCES.todoItem, row(id), view, undefined, undefined, undefined, texts);
      let kept = 0, notFlat = 0;
      for (const m of texts.byWriter.values()) for (const e of m.values()) {
        if (typeof e.text !== 'string') continue; // a mark (read once)
        kept++;
        if (!%StringIsFlat(e.text)) notFlat++;
      }
      console.log(JSON.stringify({ kept, notFlat, hits: texts.hits }));
    `);
    expect(out.kept).toBe(22000);
    expect(out.hits).toBe(20000); // the second reading of every list
    expect(out.notFlat).toBe(0);
  });

  it("the response cache's bodies are flat", () => {
    const out = natives(`
      import { ResponseCache } from ${mod('electron/http/cache.ts')};
      const cache = new ResponseCache(256 << 20, 1 << 16);
      const body = (i) => { let s = '<x>'; for (let k = 0; k < 40; k++) s += '<n>' + (i * 41 + k) + '</n>'; return s + '</x>'; };
      // Admitted at the second asking (D131): each key set twice under the same token.
      for (let i = 0; i < 20000; i++) for (let n = 0; n < 2; n++) cache.set('k' + i, '1', { status: 200, headers: {}, type: 'application/xml', body: body(i) });
      let kept = 0, notFlat = 0;
      for (let i = 0; i < 20000; i++) { const r = cache.get('k' + i, '1'); if (!r) continue; kept++; if (!%StringIsFlat(r.body)) notFlat++; }
      console.log(JSON.stringify({ kept, notFlat }));
    `);
    expect(out.kept).toBe(20000);
    expect(out.notFlat).toBe(0);
  });
});
