// Project routes (contract §8.1), both styles.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/projects.ts';
import { newProjectInput, projectInput } from '../inputs.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.project;
const one = (row: Row, status?: number): Reply => ({
  kind: 'one', resource: R, row, status, headers: status === 201 ? { Location: R.location!(Number(row.id)) } : undefined,
});

export default async function projects(app: FastifyInstance): Promise<void> {
  const list = async (r: Req): Promise<Reply> => ({ kind: 'many', resource: R, rows: await svc.list(r.ctx) });
  const show = async (r: Req): Promise<Reply> => one(await svc.get(r.ctx, r.id('id')));

  route(app, '/projects.xml', {
    style: 'resource', body: true,
    GET: list,
    POST: async (r) => one(await svc.create(r.ctx, newProjectInput(r.root)), 201),
  });
  route(app, '/project/list', { style: 'action', any: list });
  route(app, '/projects/count.xml', {
    style: 'resource',
    GET: async (r) => {
      const c = await svc.count(r.ctx);
      return { kind: 'plain', root: 'count', entries: [['active', 'integer', c.active], ['archived', 'integer', c.archived], ['on-hold', 'integer', c.on_hold]] };
    },
  });
  route(app, '/projects/:id.xml', {
    style: 'resource', body: true,
    GET: show,
    PUT: async (r) => one(await svc.update(r.ctx, r.id('id'), projectInput(r.root))),
  });
  route(app, '/projects/:id', { style: 'resource', GET: show });
  route(app, '/project/show/:id', { style: 'action', any: show });
}
