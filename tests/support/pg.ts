// PostgreSQL for tests: the cluster of the run (tests/support/pg-global.ts) and fresh databases on it.

import { inject } from 'vitest';
import pg from 'pg';

/** Admin URL of the run's cluster, or '' when PostgreSQL is not available (see pgSkipReason). */
export const pgUrl = (): string => inject('pgUrl') ?? '';
export const pgSkipReason = (): string => inject('pgSkip') || (pgUrl() ? '' : 'PostgreSQL is not available');

let seq = 0;
/** A new empty database (optionally a copy of `template`); returns its URL. */
export async function freshDatabase(template?: string): Promise<string> {
  const admin = pgUrl();
  if (!admin) throw new Error(pgSkipReason());
  const name = `t_${process.pid}_${Date.now().toString(36)}_${++seq}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await c.end();
  }
  return admin.replace(/\/[^/]*$/, `/${name}`);
}

/** The database name of a URL. */
export const dbName = (url: string): string => new URL(url).pathname.slice(1);
