// Local sync routes (issue #8; docs/sync-client.md): JSON, the local owner's credentials only.
//   GET /sync/status, POST /sync/run, GET /sync/conflicts, POST /sync/conflicts/{id}/resolve,
//   GET /sync/rejected, PUT /sync/remote, DELETE /sync/remote.
// Thin over the sync port (electron/service/sync.ts; the engine in electron/sync/ implements it).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../service/context.ts';
import { SyncError, type SyncPort } from '../../service/sync.ts';
import { sendError } from '../api.ts';

const json = (reply: FastifyReply, status: number, v: unknown) => reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(v));

function body(req: FastifyRequest): Record<string, unknown> {
  const raw = req.body as Buffer | undefined;
  if (!raw || !raw.length) return {};
  try {
    const v = JSON.parse(raw.toString('utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch { /* below */ }
  throw new ApiError(400, ['The body must be a JSON object']);
}

export function syncPlugin(engine: SyncPort) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const guard = async (req: FastifyRequest): Promise<void> => {
      const owner = await engine.ownerId();
      if (!req.caller || (owner !== null ? req.caller.id !== owner : !req.caller.admin)) {
        throw new ApiError(403, ['Only the local owner may use the sync routes']);
      }
    };
    const handle = (fn: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => async (req: FastifyRequest, reply: FastifyReply) => {
      try {
        await guard(req);
        return await fn(req, reply);
      } catch (e) {
        if (e instanceof SyncError) return sendError(reply, new ApiError(e.status, [e.message]), true);
        if (e instanceof ApiError) return sendError(reply, e, true);
        throw e;
      }
    };
    app.get('/sync/status', handle(async (_req, reply) => json(reply, 200, await engine.status())));
    // Starts a sync and answers the status at once (the shell polls); `?wait=true` answers when it is over.
    app.post('/sync/run', handle(async (req, reply) => {
      if (!engine.connected && !engine.connecting) throw new ApiError(409, ['No remote is connected']);
      const running = engine.run().then(() => null, (e: Error) => e.message);
      if ((req.query as Record<string, string>).wait !== 'true') return json(reply, 202, await engine.status());
      const err = await running;
      return json(reply, err ? 502 : 200, { ...(await engine.status()), ...(err ? { error: err, message: err } : {}) });
    }));
    app.get('/sync/conflicts', handle(async (_req, reply) => json(reply, 200, await engine.conflicts())));
    app.get('/sync/rejected', handle(async (_req, reply) => json(reply, 200, await engine.rejected())));
    app.post('/sync/conflicts/:id/resolve', handle(async (req, reply) => {
      const id = (req.params as { id: string }).id;
      if (!/^\d{1,15}$/.test(id)) throw new ApiError(404, ['No such conflict']);
      const keep = body(req).keep;
      if (keep !== 'mine' && keep !== 'theirs' && keep !== 'restore') throw new ApiError(422, ['keep must be "mine", "theirs" or "restore"']);
      return json(reply, 200, await engine.resolve(Number(id), keep));
    }));
    app.put('/sync/remote', handle(async (req, reply) => {
      const b = body(req);
      const url = typeof b.url === 'string' ? b.url : '';
      if (!url) throw new ApiError(422, ["url can't be blank"]);
      if (typeof b.token === 'string' && b.token) await engine.connect(url, { token: b.token }, { caller: req.caller?.id ?? null });
      else if (typeof b.user === 'string' && typeof b.password === 'string' && b.user) await engine.connect(url, { user: b.user, password: b.password }, { caller: req.caller?.id ?? null });
      else throw new ApiError(422, ['Give {url, user, password} or {url, token}']);
      engine.start();
      return json(reply, 200, await engine.status());
    }));
    app.delete('/sync/remote', handle(async (_req, reply) => {
      await engine.disconnect();
      return json(reply, 200, await engine.status());
    }));
  };
}
