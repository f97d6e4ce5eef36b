// Comment routes (contract §8.6, §8.11), both styles, for the three parent kinds. A `{kind}` other
// than posts, milestones, todo_items matches no route (404).

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/comments.ts';
import { commentInput, selectingId } from '../inputs.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.comment;
const one = (row: Row, status?: number): Reply => ({
  kind: 'one', resource: R, row, status, headers: status === 201 ? { Location: R.location!(Number(row.id)) } : undefined,
});

export default async function comments(app: FastifyInstance): Promise<void> {
  for (const kind of Object.keys(svc.KINDS) as svc.Kind[]) {
    const type = svc.KINDS[kind];
    route(app, `/${kind}/:parentId/comments.xml`, {
      style: 'resource', body: true,
      GET: async (r) => {
        const p = await svc.page(r.ctx, kind, r.id('parentId'), r.query('threshold'));
        const attrs: Record<string, string | number> = { count: p.count };
        if (p.continuedAt) attrs['continued-at'] = p.continuedAt;
        return { kind: 'many', resource: R, rows: p.rows, attrs };
      },
      POST: async (r) => one(await svc.create(r.ctx, type, r.id('parentId'), commentInput(r.root)), 201),
    });
    route(app, `/${kind}/:parentId/comments/new.xml`, {
      style: 'resource',
      GET: async (r) => {
        const t = await svc.newTemplate(r.ctx, type, r.id('parentId'));
        return { kind: 'plain', root: t.root, entries: t.entries, headers: { 'X-Create-Action': `POST /${kind}/${r.id('parentId')}/comments.xml` } };
      },
    });
  }

  const show = async (r: Req): Promise<Reply> => one(await svc.get(r.ctx, r.id('id')));
  route(app, '/comments/:id.xml', {
    style: 'resource', body: true,
    GET: show,
    PUT: async (r) => one(await svc.update(r.ctx, r.id('id'), commentInput(r.root))),
    DELETE: async (r) => { await svc.remove(r.ctx, r.id('id')); return { kind: 'empty' }; },
  });
  route(app, '/comments/:id', { style: 'resource', GET: show });
  route(app, '/comments/:id/edit.xml', {
    style: 'resource',
    GET: async (r) => {
      const t = await svc.editTemplate(r.ctx, r.id('id'));
      return { kind: 'plain', root: t.root, entries: t.entries, headers: { 'X-Update-Action': `PUT /comments/${r.id('id')}.xml` } };
    },
  });

  route(app, '/msg/comments/:id', { style: 'action', any: async (r) => ({ kind: 'many', resource: R, rows: await svc.ofPost(r.ctx, r.id('id')) }) });
  route(app, '/msg/comment/:id', { style: 'action', any: show });
  route(app, '/msg/create_comment', { style: 'action', body: true, any: async (r) => one(await svc.create(r.ctx, 'Post', selectingId(r.root, RESOURCES.comment.recordNames, 'post-id', 'Post'), commentInput(r.root)), 201) });
  route(app, '/msg/update_comment', { style: 'action', body: true, any: async (r) => one(await svc.update(r.ctx, selectingId(r.root, RESOURCES.comment.recordNames, 'comment-id', 'Comment'), commentInput(r.root))) });
  route(app, '/msg/delete_comment/:id', { style: 'action', any: async (r) => one(await svc.remove(r.ctx, r.id('id'))) });
}
