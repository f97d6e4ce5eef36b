// The administration commands on a replica (issue #27, D332): refused (exit 1) with the service's words, and told
// where the change is made instead (the team server's data, or its People area in a browser). Nothing changes.

import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { adminMain } from '../../electron/admin-cli.ts';
import { importSeed } from '../../electron/service/account.ts';
import { DB_FILE } from '../../electron/server.ts';
import { SqliteStore } from '../../electron/store/sqlite.ts';
import { FIXTURE } from '../support/helpers.ts';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = new PassThrough(), err = new PassThrough();
  let stdout = '', stderr = '';
  out.on('data', (b: Buffer) => { stdout += b.toString(); });
  err.on('data', (b: Buffer) => { stderr += b.toString(); });
  return { code: await adminMain(argv, '/nonexistent', out, err), stdout, stderr };
}

describe.skipIf(process.env.BIVOUAC_TEST_STORE === 'postgres')('bivouac people|members on a replica', () => {
  it('is refused, says where to go, and changes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-replica-cli-'));
    dirs.push(dir);
    const store = new SqliteStore(join(dir, DB_FILE));
    await importSeed(store, FIXTURE);
    await store.write(async (w) => { await w.run('INSERT INTO sync_state (key, value) VALUES (?, ?)', ['url', 'http://team.example:4817']); });
    const before = await store.all('SELECT id, active, first_name FROM people ORDER BY id');
    await store.close();
    for (const argv of [['people', 'deactivate', '2'], ['members', 'remove', '1', '2']]) {
      const r = await run([...argv, '--data-dir', dir]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('managed on the team server');
      expect(r.stderr).toContain('open http://team.example:4817 in a browser and use People as an administrator');
    }
    const again = new SqliteStore(join(dir, DB_FILE));
    try { expect(await again.all('SELECT id, active, first_name FROM people ORDER BY id')).toEqual(before); } finally { await again.close(); }
  });
});
