// The push's batches (issue #26, D285): against a team server that advertises `batch`
// (docs/sync-protocol.md §5), the outbox's single-step entries of a wave go up in `POST /sync/batch.json`
// requests of at most `max` mutations and `bytes` bytes, each mutation with the key it would have had
// alone. Each mutation's result is then handled by the engine's pushEntry exactly as the answer of a
// single request. Anything that is not a batch answer makes the push fall back to single requests for
// the rest of the connection: safe, since every mutation's key replays what already committed.

import { createHash } from 'node:crypto';
import { errorMessage, remoteNow, type Remote, type RemoteResponse } from './remote.ts';

export interface BatchMutation { readonly method: string; readonly path: string; readonly body: string | null; readonly key: string }

type KeyedStep = { readonly kind: string; readonly method: string; readonly path: string; readonly body: string | null };

/**
 * The Idempotency-Key of an outbox entry's step: `client-seq-step`. A reorder carries its parent's order AT PUSH
 * TIME (D336): planned again after a later local reorder (its first answer lost) it is another request, which
 * the same key would have the remote refuse (422) and the action be rejected; its key names its request too.
 * Sending the newer order after the older one committed is safe: a reorder sets the whole order.
 */
export const stepKey = (client: string, seq: number, k: number, step: KeyedStep): string => (step.kind === 'reorder'
  ? `${client}-${seq}-${k}-${createHash('sha256').update(`${step.method} ${step.path}\n${step.body ?? ''}`).digest('base64url').slice(0, 22)}`
  : `${client}-${seq}-${k}`);

/** An outbox entry's step as a mutation, with the key it has alone (stepKey, as pushEntry sends it). */
export const toMutation = (client: string, seq: number, k: number, step: KeyedStep): BatchMutation =>
  ({ method: step.method, path: step.path, body: step.body, key: stepKey(client, seq, k, step) });

/** A mutation of a batch that did not run (an earlier one failed, or the batch fell back): not done, sent again later. */
export class Skipped extends Error {}

/** What a batch answered for each of its mutations: an answer, or null when it did not run. */
export type BatchAnswers = (RemoteResponse | null)[];

const ENVELOPE = 64; // `{"method":…,"path":…,"body":…,"key":…}` around the values, with room to spare

/** The JSON bytes a mutation adds to a batch. */
export const mutationBytes = (m: BatchMutation): number => Buffer.byteLength(JSON.stringify([m.method, m.path, m.body, m.key])) + ENVELOPE;

const STATUS_RETRY = (s: number): boolean => s === 409 || s === 429 || s >= 500;

/**
 * Send one batch. Network failures throw (RemoteUnreachable: every mutation is in doubt and retried
 * with its keys). A whole-batch answer of "busy" (409, 429, 5xx) is every mutation's answer. Anything
 * else that is not a batch answer turns batches off for this connection (`remote.batch = null`) and
 * every mutation is Skipped (null).
 */
export async function sendBatch(remote: Pick<Remote, 'request' | 'batch' | 'batchOff'>, client: string, muts: readonly BatchMutation[]): Promise<BatchAnswers> {
  const body = JSON.stringify({ mutations: muts.map((m) => ({ method: m.method, path: m.path, body: m.body, key: m.key })) });
  // The batch's own key: the same mutations sent again (a lost answer) replay the whole answer; any other
  // grouping is another batch whose mutations replay one by one by their own keys.
  const key = `${client}-b-${createHash('sha256').update(body).digest('base64url').slice(0, 43)}`;
  const res = await remote.request('POST', '/sync/batch.json', body, { 'content-type': 'application/json', 'Idempotency-Key': key });
  if (STATUS_RETRY(res.status)) return muts.map(() => res);
  const off = (why: string): BatchAnswers => {
    remote.batch = null;
    remote.batchOff = `POST /sync/batch.json: ${why}`;
    return muts.map(() => null);
  };
  if (res.status !== 200) return off(`${res.status} ${errorMessage(res.status, res.body)}`);
  let j: { results?: unknown };
  try { j = JSON.parse(res.body) as typeof j; } catch { return off('the answer is not JSON'); }
  const results = j?.results;
  if (!Array.isArray(results) || results.length === 0 || results.length > muts.length) return off('the answer has no results for its mutations');
  const out: BatchAnswers = [];
  for (const r of results as { status?: unknown; location?: unknown; body?: unknown; retryAfter?: unknown }[]) {
    const status = r?.status;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599 || (status >= 300 && status < 400)) return off('a result without a valid status');
    if (r.location !== undefined && (typeof r.location !== 'string' || r.location.length > 2048)) return off('a result with an invalid Location');
    if (r.body !== undefined && typeof r.body !== 'string') return off('a result with an invalid body');
    const headers = new Headers();
    if (typeof r.location === 'string') headers.set('location', r.location);
    if (typeof r.retryAfter === 'string' && /^[\x20-\x7e]{1,64}$/.test(r.retryAfter)) headers.set('retry-after', r.retryAfter);
    const date = res.headers.get('date');
    if (date && remoteNow(res.headers) !== null) headers.set('date', date);
    out.push({ status, headers, body: typeof r.body === 'string' ? r.body : '' });
  }
  // The batch stops at its first failure: results end with it, or cover every mutation.
  const last = out[out.length - 1]!;
  if (out.length < muts.length && last.status < 300) return off('fewer results than mutations without a failure to stop at');
  if (out.slice(0, -1).some((a) => a!.status >= 300)) return off('results go on after a failure');
  while (out.length < muts.length) out.push(null);
  return out;
}

/** A mutation's answer from its batch (the batch is sent once, whoever asks first). */
export function answerOf(batch: Promise<BatchAnswers>, i: number): Promise<RemoteResponse> {
  return batch.then((a) => {
    const r = a[i];
    if (!r) throw new Skipped('not run in its batch');
    return r;
  });
}
