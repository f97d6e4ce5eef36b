// Milestone routes (contract §8.7): legacy action routes only, plus the compatibility alias
// /projects/{id}/milestones/list.xml (§8.13).

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/milestones.ts';
import { findInput, milestoneInputs, milestoneUpdate } from '../inputs.ts';

const R = RESOURCES.milestone;

export default async function milestones(app: FastifyInstance): Promise<void> {
  const one = async (p: Promise<Record<string, unknown>>): Promise<Reply> => ({ kind: 'one', resource: R, row: await p });
  // `find` is read (400) before the project is looked up (404), §4.5.
  const list = async (r: Req): Promise<Reply> => {
    const find = findInput(r.root, r.query('find'));
    return { kind: 'many', resource: R, rows: await svc.list(r.ctx, r.id('projectId'), find) };
  };

  route(app, '/projects/:projectId/milestones/list', { style: 'action', body: true, any: list });
  route(app, '/projects/:projectId/milestones/list.xml', { style: 'resource', body: true, GET: list, POST: list });
  route(app, '/projects/:projectId/milestones/create', {
    style: 'action', body: true,
    any: async (r) => {
      const rows = await svc.create(r.ctx, r.id('projectId'), milestoneInputs(r.root));
      return { kind: 'many', resource: R, rows, status: 201, headers: { Location: R.location!(Number(rows[0].id)) } };
    },
  });
  route(app, '/milestones/update/:id', { style: 'action', body: true, any: (r) => one(svc.update(r.ctx, r.id('id'), milestoneUpdate(r.root))) });
  route(app, '/milestones/complete/:id', { style: 'action', any: (r) => one(svc.complete(r.ctx, r.id('id'))) });
  route(app, '/milestones/uncomplete/:id', { style: 'action', any: (r) => one(svc.uncomplete(r.ctx, r.id('id'))) });
  route(app, '/milestones/delete/:id', { style: 'action', any: (r) => one(svc.remove(r.ctx, r.id('id'))) });
}
