// Conflict notices of the sync extension (issue #26, docs/sync-protocol.md §6, D328): `POST /sync/notices.json`
// (a replica tells the other side of a conflict it recorded) and `GET /sync/notices.json?since=` (a replica
// reads what it may have to be told). JSON only (no `.xml` twin: 404). The POST body is decoded in
// service/notices.ts; every check of a request (authentication, rate limit, Host/Origin) applies. A GET is
// answered as every resource GET is (the thin path, the response cache: a POST commits through the store's
// writer, so the change token moves and no stale page is served).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dispatch, type RouteConfig, type RouteSpec } from './api.ts';
import { notFound } from '../service/context.ts';
import { parseNotices, parseNoticesQuery, postNotices, readNotices } from '../service/notices.ts';

const spec: RouteSpec = {
  style: 'resource',
  GET: async (r) => {
    const q = parseNoticesQuery(r.query('since'), r.query('limit'));
    const page = await readNotices(r.ctx, q.since, q.limit);
    return { kind: 'custom', json: () => JSON.stringify(page), xml: () => { throw notFound('Route'); } };
  },
  POST: async () => ({ kind: 'empty' }), // answered by the route below (its body is JSON, not a record)
};

export function noticesRoute(app: FastifyInstance): void {
  const config: RouteConfig = { allow: ['GET', 'POST'], spec, json: true };
  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/sync/notices.json', config,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (req.method !== 'POST') { await dispatch(app, req, reply, spec); return reply; }
      const notices = parseNotices(Buffer.isBuffer(req.body) ? req.body : undefined);
      const out = await postNotices({ store: app.store, caller: req.caller! }, notices);
      reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(out));
      return reply;
    },
  });
}
