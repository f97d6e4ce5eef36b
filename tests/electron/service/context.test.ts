// ApiError is an answer to the client (404, 422, …), not a fault: it captures no stack (D206), and leaves
// the stack of every other error as it was.

import { describe, expect, it } from 'vitest';
import { ApiError, notFound } from '../../../electron/service/context.ts';

describe('ApiError', () => {
  it('captures no stack frames, and restores the limit for other errors', () => {
    const before = Error.stackTraceLimit;
    const e = notFound('Post');
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(404);
    expect(e.messages).toEqual(['Post not found']);
    expect(e.stack).toBe('Error: 404: Post not found');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('fault').stack).toMatch(/\n\s+at /);
  });
});
