// Vitest globalSetup: one throwaway PostgreSQL cluster per run for the tests that need it
// (tests/support/pg.ts hands out fresh databases on it). `npm test` starts the cluster itself and passes
// its URL in BIVOUAC_TEST_PG; then nothing is started here. When PostgreSQL cannot be installed,
// the PostgreSQL tests are skipped with the reason (and scripts/test.mjs fails under CI=true).

import type { TestProject } from 'vitest/node';
// @ts-expect-error: a plain ES module without types
import { startCluster } from '../../scripts/pg-cluster.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    pgSkip: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.BIVOUAC_TEST_PG;
  if (given) {
    project.provide('pgUrl', given);
    project.provide('pgSkip', '');
    return async () => undefined;
  }
  if (process.env.BIVOUAC_TEST_PG_SKIP) {
    project.provide('pgUrl', '');
    project.provide('pgSkip', process.env.BIVOUAC_TEST_PG_SKIP);
    return async () => undefined;
  }
  let cluster: { url: string; stop(): Promise<void>; stopSync(): void } | null = null;
  try {
    cluster = await startCluster({ log: () => undefined });
  } catch (e) {
    project.provide('pgUrl', '');
    project.provide('pgSkip', `PostgreSQL is not available: ${(e as Error).message}`);
    return async () => undefined;
  }
  const c = cluster!;
  const bye = () => c.stopSync();
  process.once('exit', bye);
  project.provide('pgUrl', c.url);
  project.provide('pgSkip', '');
  return async () => {
    process.off('exit', bye);
    await c.stop();
  };
}
