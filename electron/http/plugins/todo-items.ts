// todo-items routes: not written yet.

import type { FastifyInstance } from 'fastify';

export default async function todoItems(_app: FastifyInstance): Promise<void> {}
