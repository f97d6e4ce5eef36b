// The sync outbox (issue #8): every local user action — one write transaction — is appended to
// `sync_outbox` in the SAME transaction, as the list of its row changes with only the columns the
// action wrote (inserts: the new row's values; updates: the columns given to the Writer; deletes:
// the id). shared/sync/plan.ts turns one entry into the requests that replay it on the remote
// (a reorder is one entry: one reorder request, not one per shifted row).
//
// The Writer calls this module with one line per operation; a transaction that applies pulled
// remote changes mutes it, so they never come back as local mutations (no echo).

import { RESOURCES, TABLE_ORDER } from '../../shared/registry.ts';
import type { RowChange } from '../../shared/sync/plan.ts';
import type { Intent, IntentArgsOf, IntentName } from '../../shared/sync/intents/index.ts';
import type { Row } from './types.ts';

const TRACKED: ReadonlySet<string> = new Set([...TABLE_ORDER.map((k) => RESOURCES[k].table), 'project_members']);

const plain = (v: Row): Record<string, string | number | null> => {
  const o: Record<string, string | number | null> = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined) continue;
    o[k] = typeof x === 'bigint' ? Number(x) : typeof x === 'boolean' ? (x ? 1 : 0) : (x as string | number | null);
  }
  return o;
};

export class OutboxRecorder {
  private readonly changes: RowChange[] = [];
  private readonly intents: Intent[] = [];
  private muted = false;

  /**
   * Name what the person did (D336), in the transaction that does it: the push replays the intents, in the
   * order they were named, instead of guessing the action back from the row changes.
   */
  intent<N extends IntentName>(name: N, args: IntentArgsOf[N]): void {
    if (!this.muted) this.intents.push({ name, args } as Intent);
  }

  /** This transaction applies remote state: record nothing. */
  mute(): void { this.muted = true; }

  insert(table: string, id: number, values: Row): void {
    if (!this.muted && TRACKED.has(table)) this.changes.push({ t: table, id, op: 'insert', v: plain(values) });
  }
  update(table: string, id: number, values: Row): void {
    if (!this.muted && TRACKED.has(table)) this.changes.push({ t: table, id, op: 'update', v: plain(values) });
  }
  remove(table: string, id: number): void {
    if (!this.muted && TRACKED.has(table)) this.changes.push({ t: table, id, op: 'delete' });
  }

  /** The statement that appends this transaction's action, or null when it changed nothing to push. */
  flush(now: string): { sql: string; params: [string, string, string | null] } | null {
    if (this.muted || (!this.changes.length && !this.intents.length)) return null;
    return {
      sql: 'INSERT INTO sync_outbox (at, changes, intents) VALUES (?, ?, ?)',
      params: [now, JSON.stringify(this.changes), this.intents.length ? JSON.stringify(this.intents) : null],
    };
  }
}
