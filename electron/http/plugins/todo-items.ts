// Todo item routes (contract §8.9, §8.11, §8.13), both styles.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { isId, route, type Reply, type Req } from '../api.ts';
import { badRequest, notFound } from '../../service/context.ts';
import * as svc from '../../service/todo-items.ts';
import { idsInput, todoItemInput, toInput } from '../inputs.ts';
import { template } from './todo-lists.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.todoItem;
const one = (row: Row, status?: number): Reply => ({
  kind: 'one', resource: R, row, status, headers: status === 201 ? { Location: R.location!(Number(row.id)) } : undefined,
});
const many = (rows: Row[]): Reply => ({ kind: 'many', resource: R, rows });

/** `todo_list_id` of the compatibility route /todo_items.xml (§8.13). */
function listParam(r: Req): number {
  const v = r.query('todo_list_id');
  if (v === undefined) throw notFound('Todo list');
  if (!/^\d+$/.test(v)) throw badRequest('todo_list_id must be a todo list id');
  if (!isId(v)) throw notFound('Todo list');
  return Number(v);
}

export default async function todoItems(app: FastifyInstance): Promise<void> {
  const show = async (r: Req): Promise<Reply> => one(await svc.get(r.ctx, r.id('id')));
  const update = async (r: Req): Promise<Reply> => one(await svc.update(r.ctx, r.id('id'), todoItemInput(r.root)));
  const complete = async (r: Req): Promise<Reply> => one(await svc.complete(r.ctx, r.id('id')));
  const uncomplete = async (r: Req): Promise<Reply> => one(await svc.uncomplete(r.ctx, r.id('id')));
  const create = async (r: Req, listId: number): Promise<Reply> => one(await svc.create(r.ctx, listId, todoItemInput(r.root)), 201);

  route(app, '/todo_lists/:listId/todo_items.xml', {
    style: 'resource', body: true,
    GET: async (r) => many(await svc.list(r.ctx, r.id('listId'))),
    POST: (r) => create(r, r.id('listId')),
  });
  route(app, '/todo_items.xml', {
    style: 'resource', body: true,
    GET: async (r) => many(await svc.list(r.ctx, listParam(r))),
    POST: (r) => create(r, listParam(r)),
  });
  route(app, '/todo_items/:id.xml', {
    style: 'resource', body: true,
    GET: show, PUT: update,
    DELETE: async (r) => { await svc.remove(r.ctx, r.id('id')); return { kind: 'empty' }; },
  });
  route(app, '/todo_items/:id', { style: 'resource', GET: show });
  route(app, '/todos/item/:id', { style: 'action', any: show });
  route(app, '/todos/create_item/:listId', { style: 'action', body: true, any: (r) => create(r, r.id('listId')) });
  route(app, '/todos/update_item/:id', { style: 'action', body: true, any: update });
  route(app, '/todos/delete_item/:id', { style: 'action', any: async (r) => one(await svc.remove(r.ctx, r.id('id'))) });
  route(app, '/todo_items/:id/complete.xml', { style: 'resource', PUT: complete });
  route(app, '/todos/complete_item/:id', { style: 'action', any: complete });
  route(app, '/todo_items/:id/uncomplete.xml', { style: 'resource', PUT: uncomplete });
  route(app, '/todos/uncomplete_item/:id', { style: 'action', any: uncomplete });
  route(app, '/todo_lists/:listId/todo_items/reorder.xml', {
    style: 'resource', body: true, POST: async (r) => many(await svc.reorder(r.ctx, r.id('listId'), idsInput(r.root, 'todo-items'))),
  });
  route(app, '/todos/move_item/:id', { style: 'action', body: true, any: async (r) => one(await svc.move(r.ctx, r.id('id'), toInput(r.root))) });
  route(app, '/todo_lists/:listId/todo_items/new.xml', {
    style: 'resource',
    GET: async (r) => template(await svc.newTemplate(r.ctx, r.id('listId')), 'X-Create-Action', `POST /todo_lists/${r.id('listId')}/todo_items.xml`),
  });
  route(app, '/todo_items/:id/edit.xml', {
    style: 'resource',
    GET: async (r) => template(await svc.editTemplate(r.ctx, r.id('id')), 'X-Update-Action', `PUT /todo_items/${r.id('id')}.xml`),
  });

  // Compatibility aliases (§8.13): the item must be in that list.
  route(app, '/todo_lists/:listId/todo_items/:id.xml', {
    style: 'resource', body: true,
    GET: async (r) => one(await svc.getInList(r.ctx, r.id('listId'), r.id('id'))),
    PUT: async (r) => { await svc.getInList(r.ctx, r.id('listId'), r.id('id')); return update(r); },
    DELETE: async (r) => {
      await svc.getInList(r.ctx, r.id('listId'), r.id('id'));
      await svc.remove(r.ctx, r.id('id'));
      return { kind: 'empty' };
    },
  });
  route(app, '/todo_lists/:listId/todo_items/:id/complete.xml', {
    style: 'resource', PUT: async (r) => { await svc.getInList(r.ctx, r.id('listId'), r.id('id')); return complete(r); },
  });
  route(app, '/todo_lists/:listId/todo_items/:id/uncomplete.xml', {
    style: 'resource', PUT: async (r) => { await svc.getInList(r.ctx, r.id('listId'), r.id('id')); return uncomplete(r); },
  });
}
