// posts routes: not written yet.

import type { FastifyInstance } from 'fastify';

export default async function posts(_app: FastifyInstance): Promise<void> {}
