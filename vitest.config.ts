import { defineConfig } from 'vitest/config';

// Tests mirror the source tree (D326): the test of electron/sync/engine.ts is tests/electron/sync/engine.test.ts,
// of renderer/lib/csv.ts tests/renderer/lib/csv.test.ts; helpers are in tests/support/, data in tests/fixtures/.
// tests/layout.test.ts holds that rule and checks that every path named below exists.

// The resource tests run twice: on SQLite (project `node`) and on PostgreSQL (project `pg`, the
// same files through harness() with BIVOUAC_TEST_STORE=postgres). The PostgreSQL cluster of a run
// is started once by tests/support/pg-global.ts (or given by npm test in BIVOUAC_TEST_PG).
export const ON_BOTH = [
  'tests/electron/http/api.test.ts',
  'tests/electron/http/bad-input.test.ts',
  'tests/electron/http/batch.test.ts',
  'tests/electron/http/idempotency-cap.test.ts',
  'tests/electron/http/idempotency-claim.test.ts',
  'tests/electron/http/kept-rows.test.ts',
  'tests/electron/service/admin.test.ts',
  'tests/electron/service/admin-replica.test.ts',
  'tests/electron/service/auth.test.ts',
  'tests/electron/service/categories.test.ts',
  'tests/electron/service/comments.test.ts',
  'tests/electron/service/feed-ahead.test.ts',
  'tests/electron/store/insert-many.test.ts',
  'tests/electron/service/feed-privacy.test.ts',
  'tests/electron/service/milestones-private.test.ts',
  'tests/electron/service/milestones.test.ts',
  'tests/electron/service/overview.test.ts',
  'tests/electron/service/posts.test.ts',
  'tests/electron/service/projects.test.ts',
  'tests/electron/service/references.test.ts',
  'tests/electron/service/time-entries.test.ts',
  'tests/electron/service/todo-items.test.ts',
  'tests/electron/service/todo-lists.test.ts',
  'tests/electron/store/feed-touch.test.ts',
  'tests/electron/store/queries/single-reads.test.ts',
  'tests/electron/sync/clone-progressive.test.ts',
  'tests/electron/sync/conflicts.test.ts',
  'tests/electron/sync/engine.test.ts',
  'tests/electron/sync/push-intents.test.ts',
  'tests/electron/sync/live-team.test.ts',
  'tests/electron/sync/replicas.test.ts',
  'tests/electron/service/typed-services.test.ts',
  'tests/electron/service/deactivated-ids.test.ts',
  'tests/electron/sync/notices.test.ts',
  'tests/electron/store/delete-record.test.ts',
];
// Tests whose outcome depends on how SQLite's store shares its connection also run on a store in a file
// (project `file`), as the service runs it: reads made during another request's write go to a second
// connection there, and in memory there is none (D215).
export const ON_FILE = [
  'tests/electron/http/idempotency.test.ts',
  'tests/electron/http/kept-rows.test.ts',
  'tests/electron/service/posts.test.ts',
  'tests/electron/service/todo-items.test.ts',
  'tests/electron/store/concurrency.test.ts',
];
// The renderer's tests run in jsdom (project `renderer`); every other test in Node, also these two of tests/renderer/
// that read the renderer's files from disk (in jsdom `URL` is jsdom's, which node:fs does not take).
export const RENDERER = ['tests/renderer/**/*.test.{ts,tsx}'];
export const RENDERER_IN_NODE = ['tests/renderer/styles.test.ts', 'tests/renderer/imports.test.ts'];

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'node', environment: 'node', include: ['tests/*.test.ts', 'tests/!(renderer)/**/*.test.ts', ...RENDERER_IN_NODE], testTimeout: 20_000, hookTimeout: 30_000, globalSetup: ['tests/support/pg-global.ts'] } },
      { test: { name: 'pg', environment: 'node', include: ON_BOTH, env: { BIVOUAC_TEST_STORE: 'postgres' }, testTimeout: 30_000, hookTimeout: 60_000, globalSetup: ['tests/support/pg-global.ts'] } },
      { test: { name: 'file', environment: 'node', include: ON_FILE, env: { BIVOUAC_TEST_SQLITE: 'file' }, testTimeout: 30_000, hookTimeout: 30_000 } },
      { extends: './renderer/vite.config.ts', test: { name: 'renderer', environment: 'jsdom', include: RENDERER, exclude: RENDERER_IN_NODE } },
    ],
  },
});
