// The settling of a refused push (D317): the remote refused an outbox entry (403/404/422…, or an id it
// cannot give). Input: the store, the entry and the remote's answer; output: the entry on the rejected
// list, the records it touched back at the remote's state, and the caller's in-memory id map refreshed.

import { TABLE_ORDER, type ResourceKey } from '../../shared/registry.ts';
import { dataKeys } from '../../shared/sync/merge.ts';
import type { Step } from '../../shared/sync/plan.ts';
import { resourceOfTable, type WireRow } from '../../shared/sync/wire.ts';
import * as q from '../store/queries/replica.ts';
import type { Store, Writer } from '../store/types.ts';
import type { RejectedView } from '../service/sync.ts';
import { applyContext, insertValues, localValues, removeLocal, type ApplyCtx } from './apply.ts';
import { companyUsers } from '../store/queries/admin.ts';
import { addPending, type PhaseEnv, type Pending } from './phase.ts';

/** The id map both ways (`resource:id` keys), as the push holds it in memory. */
export interface IdMap { toRemote: Map<string, number>; toLocal: Map<string, number> }

/**
 * The remote refused an action (403/404/422…): it moves to the rejected list with the server's
 * message, and the records it touched return to the remote's state (shadow copies).
 */
export async function reject(env: Pick<PhaseEnv, 'store'>, entry: q.OutboxEntry, step: Pick<Step, 'resource' | 'localId' | 'path'> & { method: string }, status: number, message: string, ids: IdMap): Promise<void> {
  await env.store.write(async (w) => {
    w.outbox?.mute();
    const ctx = await applyContext(w);
    await q.addRejected(w, entry.seq, step.resource, step.localId, step.method, step.path, status, message, w.now);
    await q.outboxDone(w, entry.seq);
    await undoAdministration(w, ctx, entry);
    // The rejected entry no longer counts as pending for the restore.
    const mine = new Map<string, Pending>();
    addPending(mine, entry.changes);
    const records = [...mine.entries()].map(([k, p]) => ({ t: k.split(':')[0], id: Number(k.split(':')[1]), p }))
      .filter((r) => resourceOfTable(r.t))
      .sort((a, b) => TABLE_ORDER.indexOf(resourceOfTable(a.t)!) - TABLE_ORDER.indexOf(resourceOfTable(b.t)!));
    for (const r of records) {
      const res = resourceOfTable(r.t)!;
      const remoteId = ctx.ids.toRemote.get(`${res}:${r.id}`);
      if (remoteId === undefined) {
        if (r.p.created) {
          ctx.pending.set(`${r.t}:${r.id}`, { cols: new Set(), created: true, deleted: false });
          await removeLocal(w, ctx, res, r.id, 'rejected');
        }
        continue;
      }
      const base = await q.shadow(w, res, remoteId);
      if (!base) continue;
      const v = localValues(res, base, ctx.ids.toLocal);
      if (!v) continue;
      const cur = await q.localRow(w, r.t, r.id);
      if (cur) {
        const back: WireRow = {};
        for (const col of dataKeys(v)) if (r.p.cols.has(col) || r.p.deleted) back[col] = v[col];
        if (r.p.cols.has('completed')) for (const col of ['completed_at', 'completer_id']) back[col] = v[col] ?? null;
        if (Object.keys(back).length) await w.update(r.t, r.id, back, (cur.project_id as number | undefined) ?? undefined);
      } else {
        const ins = await insertValues(w, res, v);
        if (!ins) continue;
        ins.id = r.id;
        await w.insert(r.t, ins, (ins.project_id as number | undefined) ?? undefined);
        // Its comments were removed with it here: read them again on the next scan.
        await q.putShadow(w, res, remoteId, (await q.shadows(w)).get(`${res}:${remoteId}`)?.scope ?? '', { ...base, _comments_count: -1 });
      }
    }
    ids.toRemote.clear();
    ids.toLocal.clear();
    for (const [k, x] of ctx.ids.toRemote) ids.toRemote.set(k, x);
    for (const [k, x] of ctx.ids.toLocal) ids.toLocal.set(k, x);
  });
}

/**
 * What a refused administration intent (D338) changed here that no shadow restores: a membership, the deactivated
 * flag; and, for a company whose create was refused, what names it here (people and projects made in it here go
 * too, their own creates would be refused; a known one returns to its company on the team server).
 */
async function undoAdministration(w: Writer, ctx: ApplyCtx, entry: q.OutboxEntry): Promise<void> {
  for (const i of entry.intents ?? []) {
    if (i.name === 'member.add') await q.dropMember(w, i.args.projectId, i.args.personId);
    else if (i.name === 'member.remove' && await q.localRow(w, 'people', i.args.personId) && await q.localRow(w, 'projects', i.args.projectId)) {
      await q.addMember(w, i.args.projectId, i.args.personId);
    } else if (i.name === 'person.deactivate' && await q.localRow(w, 'people', i.args.id)) {
      await w.update('people', i.args.id, { active: 1 }); // the flag is not in the team server's record
    } else if (i.name === 'company.create' && !ctx.ids.toRemote.has(`company:${i.args.id}`)) {
      for (const [res, table] of [['person', 'people'], ['project', 'projects']] as const) {
        for (const id of await companyUsers(w, table, i.args.id)) {
          const remoteId = ctx.ids.toRemote.get(`${res}:${id}`);
          const base = remoteId === undefined ? undefined : await q.shadow(w, res, remoteId);
          const company = base ? localValues(res, base, ctx.ids.toLocal)?.company_id : undefined;
          if (typeof company === 'number' && company !== i.args.id) await w.update(table, id, { company_id: company }, res === 'project' ? id : undefined);
          else await removeLocal(w, ctx, res, id, 'rejected');
        }
      }
    }
  }
}

/** The rejected list, as the routes show it. */
export async function listRejected(store: Store): Promise<RejectedView[]> {
  return (await q.rejected(store)).map((r) => ({
    id: Number(r.id), seq: Number(r.seq), resource: r.resource as ResourceKey, recordId: Number(r.record_id), method: String(r.method),
    path: String(r.path), status: Number(r.status), message: String(r.message), at: String(r.at),
  }));
}
