// Category routes (contract §8.4), both styles. The legacy action routes post_categories /
// attachment_categories answer one kind with their own element names and no `type` element.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/categories.ts';
import { categoryInput } from '../inputs.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.category;
const LEGACY_FIELDS = R.fields.filter((f) => f.name !== 'type');
const one = (row: Row, status?: number): Reply => ({
  kind: 'one', resource: R, row, status, headers: status === 201 ? { Location: R.location!(Number(row.id)) } : undefined,
});

export default async function categories(app: FastifyInstance): Promise<void> {
  route(app, '/projects/:projectId/categories.xml', {
    style: 'resource', body: true,
    GET: async (r) => {
      const type = svc.parseType(r.query('type'));
      return { kind: 'many', resource: R, rows: await svc.list(r.ctx, r.id('projectId'), type) };
    },
    POST: async (r) => one(await svc.create(r.ctx, r.id('projectId'), categoryInput(r.root)), 201),
  });
  for (const type of ['post', 'attachment'] as const) {
    route(app, `/projects/:projectId/${type}_categories`, {
      style: 'action',
      any: async (r: Req): Promise<Reply> => ({
        kind: 'many', resource: R, rows: await svc.list(r.ctx, r.id('projectId'), type),
        root: `${type}-categories`, element: `${type}-category`, fields: LEGACY_FIELDS,
      }),
    });
  }
  route(app, '/categories/:id.xml', {
    style: 'resource', body: true,
    GET: async (r) => one(await svc.get(r.ctx, r.id('id'))),
    PUT: async (r) => one(await svc.update(r.ctx, r.id('id'), categoryInput(r.root))),
    DELETE: async (r) => { await svc.remove(r.ctx, r.id('id')); return { kind: 'empty' }; },
  });
}
