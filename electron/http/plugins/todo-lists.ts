// Todo list routes (contract §8.8, §8.11, §8.13), both styles.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { isId, route, type Reply, type Req } from '../api.ts';
import { badRequest, notFound } from '../../service/context.ts';
import * as svc from '../../service/todo-lists.ts';
import { completeInput, idsInput, todoListInput, toInput } from '../inputs.ts';
import type { Template } from '../../service/templates.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.todoList;
const one = (row: Row, status?: number): Reply => ({
  kind: 'one', resource: R, row, status, headers: status === 201 ? { Location: R.location!(Number(row.id)) } : undefined,
});
const many = (rows: Row[]): Reply => ({ kind: 'many', resource: R, rows });
export const template = (t: Template, header: string, value: string): Reply =>
  ({ kind: 'plain', root: t.root, entries: t.entries, headers: { [header]: value } });

/** `project_id` of the compatibility route /todo_lists.xml (§8.13): undefined when absent. */
function projectParam(r: Req): number | undefined {
  const v = r.query('project_id');
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw badRequest('project_id must be a project id');
  if (!isId(v)) throw notFound('Project');
  return Number(v);
}

export default async function todoLists(app: FastifyInstance): Promise<void> {
  const show = async (r: Req): Promise<Reply> => one(await svc.get(r.ctx, r.id('id')));
  const update = async (r: Req): Promise<Reply> => one(await svc.update(r.ctx, r.id('id'), todoListInput(r.root)));
  const remove = async (r: Req): Promise<Reply> => { await svc.remove(r.ctx, r.id('id')); return { kind: 'empty' }; };
  const projectLists = async (r: Req, pid: number): Promise<Reply> => {
    const filter = svc.parseFilter(r.query('filter'));
    return many(await svc.list(r.ctx, pid, filter, svc.parseInclude(r.query('include'))));
  };

  route(app, '/todo_lists.xml', {
    style: 'resource', body: true,
    GET: async (r) => {
      const pid = projectParam(r);
      if (pid !== undefined) return projectLists(r, pid);
      return many(await svc.responsibleView(r.ctx, svc.parseResponsible(r.query('responsible_party', true), r.ctx.caller.id)));
    },
    POST: async (r) => {
      const pid = projectParam(r);
      if (pid === undefined) throw notFound('Project');
      return one(await svc.create(r.ctx, pid, todoListInput(r.root)), 201);
    },
  });
  route(app, '/projects/:projectId/todo_lists.xml', {
    style: 'resource', body: true,
    GET: (r) => projectLists(r, r.id('projectId')),
    POST: async (r) => one(await svc.create(r.ctx, r.id('projectId'), todoListInput(r.root)), 201),
  });
  route(app, '/projects/:projectId/todos/lists', {
    style: 'action', body: true,
    any: async (r) => {
      const sel = completeInput(r.root, r.query('complete'));
      return many(await svc.list(r.ctx, r.id('projectId'), sel));
    },
  });
  for (const path of ['/todo_lists/:id.xml', '/todo_lists/:id']) {
    route(app, path, { style: 'resource', body: true, GET: show, PUT: update, DELETE: remove });
  }
  route(app, '/todos/list/:id', { style: 'action', any: show });
  route(app, '/projects/:projectId/todos/create_list', {
    style: 'action', body: true, any: async (r) => one(await svc.create(r.ctx, r.id('projectId'), todoListInput(r.root)), 201),
  });
  route(app, '/todos/update_list/:id', { style: 'action', body: true, any: update });
  route(app, '/todos/delete_list/:id', { style: 'action', any: async (r) => one(await svc.remove(r.ctx, r.id('id'))) });
  route(app, '/projects/:projectId/todo_lists/reorder.xml', {
    style: 'resource', body: true, POST: async (r) => many(await svc.reorder(r.ctx, r.id('projectId'), idsInput(r.root, 'todo-lists'))),
  });
  route(app, '/todos/move_list/:id', { style: 'action', body: true, any: async (r) => one(await svc.move(r.ctx, r.id('id'), toInput(r.root))) });
  route(app, '/projects/:projectId/todo_lists/new.xml', {
    style: 'resource',
    GET: async (r) => template(await svc.newTemplate(r.ctx, r.id('projectId')), 'X-Create-Action', `POST /projects/${r.id('projectId')}/todo_lists.xml`),
  });
  route(app, '/todo_lists/:id/edit.xml', {
    style: 'resource',
    GET: async (r) => template(await svc.editTemplate(r.ctx, r.id('id')), 'X-Update-Action', `PUT /todo_lists/${r.id('id')}.xml`),
  });
}
