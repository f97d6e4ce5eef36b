// categories routes: not written yet.

import type { FastifyInstance } from 'fastify';

export default async function categories(_app: FastifyInstance): Promise<void> {}
