// The benches' shared dataset (bench:api's sizes): the fixture account plus generated records, written into
// `dir` when it holds no store yet. Used by bench/memory.ts; `cliEntry` by bench/api.ts too.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BENCH_SIZES = { projects: 10, people: 20, posts: 5000, comments: 50_000, todoItems: 20_000, timeEntries: 200_000 } as const;

/** The fixture account of the tests (tests/fixtures/account.json). */
export const benchFixture = (): Record<string, unknown> & { people: { 'user-name': string; password: string; administrator?: boolean }[] } =>
  JSON.parse(readFileSync(join(ROOT, 'tests', 'fixtures', 'account.json'), 'utf8'));

/** Generate the dataset into `dir` unless it holds a store already; true when it was generated. */
export async function benchDataset(dir: string): Promise<boolean> {
  const { DB_FILE } = await import('../electron/server.ts');
  if (existsSync(join(dir, DB_FILE))) return false;
  mkdirSync(dir, { recursive: true });
  const { SqliteStore } = await import('../electron/store/sqlite.ts');
  const { importSeed } = await import('../electron/service/account.ts');
  const { generateDataset } = await import('../electron/service/dataset.ts');
  const store = new SqliteStore(join(dir, DB_FILE));
  await importSeed(store, benchFixture());
  await generateDataset(store, BENCH_SIZES);
  await store.close();
  return true;
}

/** `Basic …` of the fixture's administrator (every bench asks as them). */
export function benchAuth(): string {
  const admin = benchFixture().people.find((p) => p.administrator)!;
  return `Basic ${Buffer.from(`${admin['user-name']}:${admin.password}`).toString('base64')}`;
}

/**
 * The CLI entry of a checkout (`electron/bin.mjs`; `electron/bin.ts` before D208), so that benches can run
 * an older tree beside this one.
 */
export const cliEntry = (root: string): string =>
  existsSync(join(root, 'electron', 'bin.mjs')) ? join(root, 'electron', 'bin.mjs') : join(root, 'electron', 'bin.ts');
