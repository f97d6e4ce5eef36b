// A read thread (read-pool.ts, D232): the app's routes over a replica of the store (store/sqlite-replica.ts),
// answering the resource GETs the thread that writes sends it, one at a time: each in its own snapshot,
// taken after the request's epoch was read. Started by ReadPool with `new Worker(url of this file)`, from the
// TypeScript sources (Node 24 strips the types) and from the compiled build (dist/…/read-worker.js).

import { parentPort, workerData } from 'node:worker_threads';
import { buildApp } from './app.ts';
import { ReplicaWrite, SqliteReplica } from '../store/sqlite-replica.ts';
import { ApiError } from '../service/context.ts';
import type { ReadAsk, ReadReply, ReadWorkerData } from './read-pool.ts';

const data = workerData as ReadWorkerData;
const port = parentPort!;
const store = new SqliteReplica(data.path, data.counts);
const app = await buildApp({ store, logLevel: 'silent', responseCacheBytes: 0, recordTextBytes: data.recordTextBytes });
await app.ready();
const thin = app.thinPath!;
const post = (m: ReadReply): void => port.postMessage(m);

async function answer(m: ReadAsk): Promise<void> {
  try {
    store.begin(m.token);
    post({ id: m.id, out: await thin.produce(m.url, m.caller, m.token, m.json) });
  } catch (e) {
    if (e instanceof ReplicaWrite) post({ id: m.id, local: true });
    else if (e instanceof ApiError) post({ id: m.id, error: { status: e.status, messages: e.messages, headers: { ...e.headers } } });
    else post({ id: m.id, crash: { message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined } });
  } finally {
    store.end();
  }
}

// One request at a time: each has its snapshot and its epoch (the replica's `begin`).
let chain = Promise.resolve();
port.on('message', (m: ReadAsk) => { chain = chain.then(() => answer(m)); });
post({ ready: true });
