// milestones routes: not written yet.

import type { FastifyInstance } from 'fastify';

export default async function milestones(_app: FastifyInstance): Promise<void> {}
