import { describe, expect, it } from 'vitest';
import { sseParser, type SseEvent } from '../../shared/sse.ts';

describe('sseParser', () => {
  it('reads events split anywhere across chunks, skips comments, joins data lines', () => {
    const out: SseEvent[] = [];
    const p = sseParser((e) => out.push(e));
    const text = 'retry: 2000\nevent: ready\nid: 4\ndata: {"seq":4}\n\n: keep-alive\n\nevent: change\r\nid: 9\r\ndata: {"a":1,\r\ndata: "b":2}\r\n\r\ndata: plain\n\n';
    for (const ch of text) p.push(ch);
    expect(out).toEqual([
      { event: 'ready', data: '{"seq":4}', id: '4' },
      { event: 'change', data: '{"a":1,\n"b":2}', id: '9' },
      { event: 'message', data: 'plain', id: null },
    ]);
  });
  it('an event without a blank line after it is not complete yet', () => {
    const out: SseEvent[] = [];
    const p = sseParser((e) => out.push(e));
    p.push('event: change\ndata: x\n');
    expect(out).toEqual([]);
    p.push('\n');
    expect(out).toHaveLength(1);
  });
});
