// comments routes: not written yet.

import type { FastifyInstance } from 'fastify';

export default async function comments(_app: FastifyInstance): Promise<void> {}
