// A parser of Server-Sent Events (the text/event-stream format) fed with text chunks as they arrive
// from a streaming fetch. Pure: no DOM (EventSource cannot send an Authorization header, D94).

export interface SseEvent { event: string; data: string; id: string | null }

/** A line, or an event, longer than the parser's `maxChars`: the stream is not one to follow. */
export class SseTooLarge extends Error {}

/**
 * Feed chunks with `push`; each complete event is passed to `onEvent`. Comments (`:`) are skipped.
 * `maxChars`: a line not ended, or an event's data, longer than this throws SseTooLarge from `push`
 * (a stream of one endless line or endless data lines cannot grow the buffer without bound).
 */
export function sseParser(onEvent: (e: SseEvent) => void, o: { maxChars?: number } = {}): { push(chunk: string): void } {
  const max = o.maxChars ?? Infinity;
  let buf = '';
  let event = '';
  let data: string[] = [];
  let size = 0;
  let id: string | null = null;
  const line = (l: string) => {
    if (l === '') {
      if (data.length) onEvent({ event: event || 'message', data: data.join('\n'), id });
      event = ''; data = []; id = null; size = 0;
      return;
    }
    if (l.startsWith(':')) return;
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    let value = i < 0 ? '' : l.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') {
      size += value.length + 1;
      if (size > max) throw new SseTooLarge(`an event of the stream is longer than ${max} characters`);
      data.push(value);
    }
    else if (field === 'id') id = value;
  };
  return {
    push(chunk) {
      buf += chunk;
      let i: number;
      while ((i = buf.search(/\r\n|\n|\r/)) >= 0) {
        const nl = buf[i] === '\r' && buf[i + 1] === '\n' ? 2 : 1;
        // a lone \r at the very end may be the first half of \r\n: wait for more
        if (buf[i] === '\r' && i === buf.length - 1) break;
        line(buf.slice(0, i));
        buf = buf.slice(i + nl);
      }
      if (buf.length > max) throw new SseTooLarge(`a line of the stream is longer than ${max} characters`);
    },
  };
}
