// Post routes (contract §8.5, §8.11), both styles. Action routes are thin adapters over the same
// operations. Get-one-message routes answer 400 for a comma in the id (§2.1).

import type { FastifyInstance } from 'fastify';
import { postSummaryFields, RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/posts.ts';
import { archiveCategory, postInput } from '../inputs.ts';
import type { Template } from '../../service/templates.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.post;
const one = (row: Row, status?: number): Reply => ({
  kind: 'one', resource: R, row, status, headers: status === 201 ? { Location: R.location!(Number(row.id)) } : undefined,
});
const summaries = (rows: Row[]): Reply => ({ kind: 'many', resource: R, rows, fields: postSummaryFields });
const plain = (t: Template, headers: Record<string, string>): Reply => ({ kind: 'plain', root: t.root, entries: t.entries, headers });

export default async function posts(app: FastifyInstance): Promise<void> {
  const create = async (r: Req): Promise<Reply> => one(await svc.create(r.ctx, r.id('projectId'), postInput(r.root)), 201);
  const show = async (r: Req): Promise<Reply> => one(await svc.get(r.ctx, r.id('id')));
  const update = async (r: Req): Promise<Reply> => one(await svc.update(r.ctx, r.id('id'), postInput(r.root)));
  const catArchive = async (r: Req): Promise<Reply> => summaries(await svc.archive(r.ctx, r.id('projectId'), r.id('categoryId')));

  route(app, '/projects/:projectId/posts.xml', {
    style: 'resource', body: true,
    GET: async (r) => ({ kind: 'many', resource: R, rows: await svc.list(r.ctx, r.id('projectId'), r.query('n')) }),
    POST: create,
  });
  route(app, '/projects/:projectId/msg/create', { style: 'action', body: true, any: create });
  route(app, '/projects/:projectId/posts/archive.xml', {
    style: 'resource', GET: async (r) => summaries(await svc.archive(r.ctx, r.id('projectId'))),
  });
  route(app, '/projects/:projectId/msg/archive', {
    style: 'action', body: true,
    any: async (r) => summaries(await svc.archive(r.ctx, r.id('projectId'), archiveCategory(r.root, r.query('category_id') ?? r.query('category-id')))),
  });
  route(app, '/projects/:projectId/cat/:categoryId/posts.xml', {
    style: 'resource',
    GET: async (r) => ({ kind: 'many', resource: R, rows: await svc.list(r.ctx, r.id('projectId'), r.query('n'), r.id('categoryId')) }),
  });
  route(app, '/projects/:projectId/cat/:categoryId/posts/archive.xml', { style: 'resource', GET: catArchive });
  route(app, '/projects/:projectId/msg/cat/:categoryId/archive', { style: 'action', any: catArchive });

  route(app, '/posts/:id.xml', {
    style: 'resource', body: true, commaIs400: 'id',
    GET: show,
    PUT: update,
    DELETE: async (r) => { await svc.remove(r.ctx, r.id('id')); return { kind: 'empty' }; },
  });
  route(app, '/posts/:id', { style: 'resource', commaIs400: 'id', GET: show });
  route(app, '/msg/get/:id', {
    style: 'action', commaIs400: 'id',
    any: async (r) => ({ kind: 'many', resource: R, rows: [await svc.get(r.ctx, r.id('id'))] }),
  });
  route(app, '/msg/update/:id', { style: 'action', body: true, any: update });
  route(app, '/msg/delete/:id', { style: 'action', any: async (r) => one(await svc.remove(r.ctx, r.id('id'))) });

  route(app, '/posts/:id/edit.xml', {
    style: 'resource',
    GET: async (r) => plain(await svc.editTemplate(r.ctx, r.id('id')), { 'X-Update-Action': `PUT /posts/${r.id('id')}.xml` }),
  });
  route(app, '/projects/:projectId/posts/new.xml', {
    style: 'resource',
    GET: async (r) => plain(await svc.newTemplate(r.ctx, r.id('projectId')), { 'X-Create-Action': `POST /projects/${r.id('projectId')}/posts.xml` }),
  });
}
