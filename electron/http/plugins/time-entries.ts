// time-entries routes: not written yet.

import type { FastifyInstance } from 'fastify';

export default async function timeEntries(_app: FastifyInstance): Promise<void> {}
