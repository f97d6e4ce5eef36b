// First run (docs/setup.md, D96): `GET /setup.json` says whether the data directory has an account
// (and whether it is the demo); `POST /setup.json` creates your own account or loads the demo, once,
// only from this computer. Both are public: there is nobody to authenticate yet.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../service/context.ts';
import * as svc from '../../service/setup.ts';
import { sendError } from '../api.ts';

export interface SetupPluginOptions {
  /** Called after an account was created (the server writes the api-token file). */
  readonly onCreated?: () => Promise<void>;
}

const LOCAL = /^(127\.|::1$|::ffff:127\.)/;

export default async function setup(app: FastifyInstance, opts: SetupPluginOptions): Promise<void> {
  // One first run at a time (per app instance): two forms sent together must not make two accounts.
  let running: Promise<void> = Promise.resolve();

  const json = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));

  app.route({
    method: ['GET', 'HEAD'], url: '/setup.json', config: { public: true },
    handler: async (_req, reply) => json(reply, 200, await svc.status(app.store)),
  });

  app.route({
    method: 'POST', url: '/setup.json', config: { public: true },
    handler: async (req: FastifyRequest, reply) => {
      if (!LOCAL.test(req.socket.remoteAddress ?? '')) {
        return sendError(reply, new ApiError(403, ['The first-run setup is only offered on the computer Bivouac runs on']), true);
      }
      let body: Record<string, unknown>;
      try {
        const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
        body = raw.trim() ? JSON.parse(raw) as Record<string, unknown> : {};
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
      } catch {
        return sendError(reply, new ApiError(400, ['The body must be a JSON object']), true);
      }
      const work = running.then(async () => {
        if (body.demo === true) await svc.loadDemo(app.store);
        else {
          const s = (body.setup ?? {}) as Record<string, unknown>;
          const str = (k: string) => (typeof s[k] === 'string' ? s[k] as string : '');
          await svc.createOwn(app.store, {
            firmName: str('firm_name'), firstName: str('first_name'), lastName: str('last_name'), userName: str('user_name'),
            password: typeof s.password === 'string' ? s.password : '', email: str('email'), projectName: str('project_name'),
          });
        }
        await opts.onCreated?.();
      });
      running = work.catch(() => undefined);
      await work;
      return json(reply, 201, await svc.status(app.store));
    },
  });
}
