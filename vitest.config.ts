import { defineConfig } from 'vitest/config';

// The resource tests run twice: on SQLite (project `node`) and on PostgreSQL (project `pg`, the
// same files through harness() with BIVOUAC_TEST_STORE=postgres). The PostgreSQL cluster of a run
// is started once by tests/support/pg-global.ts (or given by npm test in BIVOUAC_TEST_PG).
const ON_BOTH = ['auth', 'bad-input', 'categories', 'comments', 'http', 'milestones', 'posts', 'projects', 'references', 'time-entries', 'todo-items', 'todo-lists', 'sync', 'sync-replicas', 'single-reads', 'hidden-links', 'kept-rows', 'idempotency-cap', 'feed-privacy', 'admin', 'sync-batch', 'sync-conflicts', 'overview', 'sync-live', 'typed-services', 'deactivated-ids', 'sync-notices', 'relations']
  .map((f) => `tests/${f}.test.ts`);
// Tests whose outcome depends on how SQLite's store shares its connection also run on a store in a file
// (project `file`), as the service runs it: reads made during another request's write go to a second
// connection there, and in memory there is none (D215).
const ON_FILE = ['kept-rows', 'todo-items', 'posts', 'concurrency', 'idempotency'].map((f) => `tests/${f}.test.ts`);

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'node', environment: 'node', include: ['tests/**/*.test.ts', 'shared/**/*.test.ts'], testTimeout: 20_000, hookTimeout: 30_000, globalSetup: ['tests/support/pg-global.ts'] } },
      { test: { name: 'pg', environment: 'node', include: ON_BOTH, env: { BIVOUAC_TEST_STORE: 'postgres' }, testTimeout: 30_000, hookTimeout: 60_000, globalSetup: ['tests/support/pg-global.ts'] } },
      { test: { name: 'file', environment: 'node', include: ON_FILE, env: { BIVOUAC_TEST_SQLITE: 'file' }, testTimeout: 30_000, hookTimeout: 30_000 } },
      { extends: './renderer/vite.config.ts', test: { name: 'renderer', environment: 'jsdom', include: ['renderer/**/*.test.{ts,tsx}'] } },
    ],
  },
});
