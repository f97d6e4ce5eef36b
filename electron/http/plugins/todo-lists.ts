// todo-lists routes: not written yet.

import type { FastifyInstance } from 'fastify';

export default async function todoLists(_app: FastifyInstance): Promise<void> {}
