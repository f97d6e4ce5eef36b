// The push phase (D317): the outbox replayed against the remote in waves (D105), batched to a team server
// that offers it (D285), one request per step to a plain one. Input: the store (outbox, id map, client id),
// a remote that takes requests; output: whether anything was sent, with the id map, finished entries and
// rejections (reject.ts) recorded one transaction per wave. A transient failure throws (Backoff, RemoteError).

import { RESOURCES } from '../../shared/registry.ts';
import { type IdLookup } from '../../shared/sync/ids.ts';
import { classify } from '../../shared/sync/merge.ts';
import { matchesCreate, Unmapped, type LocalView, type RowChange, type Step } from '../../shared/sync/plan.ts';
import { planEntry } from '../../shared/sync/intents/index.ts';
import { decodeCollection, resourceOfTable, type WireRow } from '../../shared/sync/wire.ts';
import { dependencies, ready } from '../../shared/sync/schedule.ts';
import { parseXml } from '../../shared/codec/in.ts';
import * as q from '../store/queries/replica.ts';
import type { Store } from '../store/types.ts';
import { errorMessage, remoteNow, RemoteUnreachable, type Remote, type RemoteResponse } from './remote.ts';
import { answerOf, mutationBytes, sendBatch, Skipped, stepKey, toMutation } from './push-batch.ts';
import { rememberPushed } from './notices.ts';
import { retryAfterMs } from './backoff.ts';
import { reject, type IdMap } from './reject.ts';
import { Backoff, type PhaseEnv } from './phase.ts';

/** What a push asks of the remote: requests, XML pages (to find an earlier create), and its batch of writes. */
export type PushRemote = Pick<Remote, 'request' | 'getXml' | 'batch' | 'batchOff'>;

export interface PushOptions {
  /** The remote honours Idempotency-Key (a team server): keys on every step, batches when it offers them. */
  readonly idempotency: boolean;
  /** Settle, one by one, only the entries whose answer was lost. */
  readonly inDoubtOnly?: boolean;
  /** Independent outbox entries pushed at once (default 8; D105). */
  readonly concurrency?: number;
  /** A team server: remember the values pushed, so a notice of their overwrite is recognised (D329). */
  readonly team?: boolean;
}

/** One entry's outcome: done (with the id its create got), or refused by the remote. */
export type EntryOutcome = { kind: 'ok'; map: (Step & { remoteId: number }) | null } | { kind: 'rejected'; step: Step; status: number; message: string };

export async function loadView(store: Store, changes: readonly RowChange[]): Promise<LocalView> {
  const rows = new Map<string, WireRow | undefined>();
  const orders = new Map<string, number[]>();
  for (const c of changes) {
    const res = resourceOfTable(c.t);
    if (c.op !== 'update' || !(res === 'todoItem' || res === 'todoList') || !c.v || !('position' in c.v || 'todo_list_id' in c.v)) continue;
    const row = await q.localRow(store, c.t, c.id) as WireRow | undefined;
    rows.set(`${c.t}:${c.id}`, row);
    if (!row) continue;
    const parent = Number(res === 'todoItem' ? row.todo_list_id : row.project_id);
    orders.set(`${res}:${parent}`, (await q.childOrder(store, res, parent)).map((r) => Number(r.id)));
  }
  return {
    row: (t, id) => rows.get(`${t}:${id}`),
    order: (r, parent) => orders.get(`${r}:${parent}`) ?? [],
  };
}

/**
 * Replay the outbox; true when anything was sent. Independent entries run concurrently (at most
 * `pushConcurrency`, D105): shared/sync/schedule.ts says which must wait (per record, parents
 * before children, barriers). Each wave's outcomes are recorded in ONE local transaction.
 * `inDoubtOnly`: settle, one by one, only the entries whose answer was lost.
 * Against a team server that advertises `batch` (D285), a wave is up to a batch's worth of entries:
 * those with one step left go up in batches (push-batch.ts), the others as before; in-doubt ones too
 * (their keys replay). Entries of a wave never depend on each other (schedule.ts), so a batch never
 * needs the id of a record created in the same batch: the dependent entry waits for the next wave.
 */
export async function push(env: PhaseEnv, remote: PushRemote, o: PushOptions): Promise<boolean> {
  const { idempotency, inDoubtOnly = false } = o;
  const load = async () => {
    const all = await q.outbox(env.store);
    return inDoubtOnly ? all.filter((e) => e.inDoubt) : all;
  };
  let entries = await load();
  if (!entries.length) return false;
  const total = entries.length;
  const ids = await q.idMap(env.store);
  const st = await q.state(env.store);
  const client = st.get('client') ?? 'c';
  const selfRemote = Number(st.get('self_remote'));
  const toRemote: IdLookup = (r, id) => ids.toRemote.get(`${r}:${id}`);
  const concurrency = Math.max(1, o.concurrency ?? 8);
  const batchCaps = () => (idempotency ? remote.batch : null);
  let deps = dependencies(entries);
  let bySeq = new Map(entries.map((e) => [e.seq, e]));
  const finished = new Set<number>();
  let done = 0;
  env.report('push', done, total);
  while (finished.size < bySeq.size) {
    const caps = batchCaps();
    const wave = caps
      // Batched (D285): candidates in outbox order; those whose dependencies finished or precede them in the batch.
      ? entries.filter((e) => !finished.has(e.seq))
      : ready(entries.map((e) => e.seq), deps, finished, new Set(), inDoubtOnly ? 1 : concurrency).map((s) => bySeq.get(s)!);
    // Plan first: an action on a record the remote does not know is rejected before anything is sent.
    let planned: { entry: q.OutboxEntry; steps: Step[] }[] = [];
    const batch: { entry: q.OutboxEntry; steps: Step[] }[] = [];
    const inBatch = new Set<number>();
    let bytes = 0;
    let reloaded = false;
    for (const entry of wave) {
      const d = deps.get(entry.seq) ?? [];
      const settled = d.every((s) => finished.has(s));
      if (caps) {
        if (batch.length >= caps.max) break;
        // Waiting for an entry not sent yet (or sent alone in this wave): the next wave.
        if (!d.every((s) => finished.has(s) || inBatch.has(s))) continue;
      }
      let steps: Step[];
      try {
        steps = planEntry(entry, await loadView(env.store, entry.changes), toRemote);
      } catch (e) {
        if (!(e instanceof Unmapped)) throw e;
        // It needs the remote id of a record created earlier in this batch: the batch is split there.
        if (!settled) continue;
        await reject(env, entry, { resource: e.resource, localId: e.id, method: '-', path: '-' }, 404, e.message, ids);
        finished.add(entry.seq);
        done++;
        reloaded = true;
        break; // a rejection may change other entries: plan again from the store
      }
      if (!caps) { planned.push({ entry, steps }); continue; }
      // A reorder lists only the children the remote already knows (plan.ts reorderStep): planned beside the
      // creates of its children in this batch it would leave them out, so it waits for them to finish.
      if (!settled && steps.some((s) => s.kind === 'reorder')) continue;
      const left = steps.length - entry.doneSteps;
      const size = left === 1 ? mutationBytes(toMutation(client, entry.seq, entry.doneSteps, steps[entry.doneSteps])) : Infinity;
      if (left === 1 && bytes + size <= caps.bytes - 64) {
        batch.push({ entry, steps });
        inBatch.add(entry.seq);
        bytes += size;
      } else if (settled && planned.length < (inDoubtOnly ? 1 : concurrency)) planned.push({ entry, steps }); // alone, as before
    }
    if (reloaded) {
      entries = (await load()).filter((e) => !finished.has(e.seq));
      deps = dependencies(entries);
      bySeq = new Map(entries.map((e) => [e.seq, e]));
      finished.clear();
      continue;
    }
    // The batch runs in order and stops at its first failure, so the order the dependencies ask for holds.
    const sends = new Map<number, () => Promise<RemoteResponse>>();
    if (batch.length) {
      const sent = sendBatch(remote, client, batch.map((p) => toMutation(client, p.entry.seq, p.entry.doneSteps, p.steps[p.entry.doneSteps])));
      sent.catch(() => undefined); // each entry reads the failure through answerOf
      batch.forEach((p, j) => sends.set(p.entry.seq, () => answerOf(sent, j)));
      planned = [...batch, ...planned];
    }
    // Each may commit and its answer be lost: settled before the next pull (Idempotency-Key, or by looking).
    await env.store.write(async (w) => {
      w.outbox?.mute();
      for (const p of planned) if (p.steps.length > p.entry.doneSteps) await q.markInDoubt(w, p.entry.seq);
    });
    const results = await Promise.allSettled(planned.map((p) => pushEntry(env.store, remote, idempotency, client, selfRemote, p.entry, p.steps, ids, sends.get(p.entry.seq))));
    // Record the wave's outcomes in one transaction: new id mappings and finished entries.
    const ok: { seq: number; map: Step & { remoteId: number } | null }[] = [];
    results.forEach((r, k) => { if (r.status === 'fulfilled' && r.value.kind === 'ok') ok.push({ seq: planned[k].entry.seq, map: r.value.map }); });
    if (ok.length) {
      await env.store.write(async (w) => {
        w.outbox?.mute();
        for (const o of ok) {
          if (o.map) await q.mapId(w, o.map.resource, o.map.localId, o.map.remoteId);
          await q.outboxDone(w, o.seq);
        }
        if (o.team) await rememberPushed(w, ok.map((x) => bySeq.get(x.seq)!)); // D329: who is told when a value is overwritten
      });
    }
    for (const o of ok) finished.add(o.seq);
    done += ok.length;
    let rejected = false;
    let failure: unknown = null;
    for (let k = 0; k < results.length; k++) {
      const r = results[k];
      if (r.status === 'rejected') { if (!(r.reason instanceof Skipped)) failure ??= r.reason; continue; } // Skipped: not run, sent again
      if (r.value.kind !== 'rejected') continue;
      await reject(env, planned[k].entry, r.value.step, r.value.status, r.value.message, ids);
      finished.add(planned[k].entry.seq);
      done++;
      rejected = true;
    }
    env.report('push', done, total);
    if (failure) throw failure;
    if (rejected) {
      entries = (await load()).filter((e) => !finished.has(e.seq));
      deps = dependencies(entries);
      bySeq = new Map(entries.map((e) => [e.seq, e]));
      finished.clear();
    }
  }
  return true;
}

/**
 * Send one entry's steps in order. Steps before the last are recorded as they complete (a crash
 * between them must not replay a committed create); the last one's outcome is returned and
 * recorded with the rest of its wave. The in-memory id map is updated at once.
 * `send`: the first step's answer comes from a batch (push-batch.ts; Skipped when it did not run).
 */
export async function pushEntry(store: Store, remote: PushRemote, idempotency: boolean, client: string, selfRemote: number, entry: q.OutboxEntry, steps: Step[],
  ids: IdMap, send?: () => Promise<RemoteResponse>): Promise<EntryOutcome> {
  let map: (Step & { remoteId: number }) | null = null;
  const remember = async (k: number, step: Step, rid: number) => {
    if (k + 1 < steps.length) { await created(store, entry.seq, k, step, rid, ids); return; }
    if (!ids.toRemote.has(`${step.resource}:${step.localId}`)) {
      ids.toRemote.set(`${step.resource}:${step.localId}`, rid);
      ids.toLocal.set(`${step.resource}:${rid}`, step.localId);
      map = { ...step, remoteId: rid };
    }
  };
  for (let k = entry.doneSteps; k < steps.length; k++) {
    const step = steps[k];
    const inDoubt = entry.inDoubt && k === entry.doneSteps;
    if (inDoubt && step.kind === 'create' && step.find && !idempotency) {
      const found = await findEarlier(remote, step, ids.toLocal, selfRemote);
      if (found !== undefined) {
        await remember(k, step, found);
        continue;
      }
    }
    if (k > entry.doneSteps) await q.markInDoubt(store, entry.seq); // the first was marked with its wave
    const headers: Record<string, string> = idempotency ? { 'Idempotency-Key': stepKey(client, entry.seq, k, step) } : {};
    let status: number | null = null;
    let body = '';
    let res: Awaited<ReturnType<Remote['request']>> | null = null;
    let netMessage = '';
    try {
      res = send && k === entry.doneSteps ? await send() : await remote.request(step.method, step.path, step.body, headers);
      status = res.status;
      body = res.body;
    } catch (e) {
      if (!(e instanceof RemoteUnreachable)) throw e;
      netMessage = e.message;
    }
    // A delete repeated after a lost answer finds nothing: it is done.
    if (status === 404 && step.kind === 'delete' && inDoubt) status = 200;
    const outcome = classify(status, res?.headers.get('retry-after'), entry.attempts, remoteNow(res?.headers) ?? Date.now(), status === null ? netMessage : status >= 200 && status < 300 ? '' : errorMessage(status, body)); // no parse of a success
    if (outcome.kind === 'retry') {
      throw new Backoff(outcome.reason, status === null, status === 429 || status === 503 || status === 409
        ? retryAfterMs(res?.headers.get('retry-after'), remoteNow(res?.headers), Date.now()) : null);
    }
    if (outcome.kind === 'rejected') {
      const message = step.kind === 'create' && step.resource === 'project' && (outcome.status === 404 || outcome.status === 405)
        ? `The remote cannot create projects (${outcome.status}: ${outcome.message}): a plain server has no project-create route. The project and what it held were removed here and are kept in the conflict log; create the project on the remote, then add the work there`
        : outcome.message;
      return { kind: 'rejected', step, status: outcome.status, message };
    }
    if (step.kind === 'create') {
      const m = /(\d+)(?:\.xml)?$/.exec(res!.headers.get('location') ?? '');
      let rid = m ? Number(m[1]) : NaN;
      if (!Number.isFinite(rid)) {
        const first = decodeCollection(RESOURCES[step.resource], parseXml(body))[0];
        rid = Number(first?.id);
      }
      // An id this replica cannot hold would stop every later sync (D251): the create is refused alone.
      if (!Number.isSafeInteger(rid) || rid <= 0) return { kind: 'rejected', step, status: status!, message: `The remote answered the create with an id that cannot be represented here (${res!.headers.get('location') ?? 'no Location'})` };
      await remember(k, step, rid);
    } else if (k + 1 < steps.length) await q.stepDone(store, entry.seq, k + 1); // the last one: the entry goes with its wave
  }
  return { kind: 'ok', map };
}

async function created(store: Store, seq: number, k: number, step: Step, remoteId: number, ids: IdMap): Promise<void> {
  await store.write(async (w) => {
    w.outbox?.mute();
    if (!ids.toRemote.has(`${step.resource}:${step.localId}`)) {
      await q.mapId(w, step.resource, step.localId, remoteId);
      ids.toRemote.set(`${step.resource}:${step.localId}`, remoteId);
      ids.toLocal.set(`${step.resource}:${remoteId}`, step.localId);
    }
    await q.stepDone(w, seq, k + 1);
  });
}

/** A plain server has no idempotency keys: did an earlier attempt of this create succeed? */
export async function findEarlier(remote: Pick<Remote, 'getXml'>, step: Step, toLocal: Map<string, number>, selfRemote: number): Promise<number | undefined> {
  const find = step.find!;
  const rows: WireRow[] = [];
  for (let page = 1; page <= 50; page++) {
    const sep = find.path.includes('?') ? '&' : '?';
    const { root, headers } = await remote.getXml(step.resource === 'timeEntry' ? `${find.path}${sep}page=${page}` : find.path);
    rows.push(...decodeCollection(RESOURCES[step.resource], root));
    if (step.resource !== 'timeEntry' || page >= Number(headers.get('x-pages') ?? 1)) break;
  }
  const mine = rows.filter((r) => !toLocal.has(`${step.resource}:${r.id}`) && matchesCreate(find, r)
    && (r.author_id === undefined || r.author_id === selfRemote) && (r.creator_id === undefined || r.creator_id === selfRemote));
  if (!mine.length) return undefined;
  return Math.max(...mine.map((r) => Number(r.id)));
}
