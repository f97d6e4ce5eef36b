// A parser of Server-Sent Events (the text/event-stream format) fed with text chunks as they arrive
// from a streaming fetch. Pure: no DOM (EventSource cannot send an Authorization header, D94).

export interface SseEvent { event: string; data: string; id: string | null }

/** Feed chunks with `push`; each complete event is passed to `onEvent`. Comments (`:`) are skipped. */
export function sseParser(onEvent: (e: SseEvent) => void): { push(chunk: string): void } {
  let buf = '';
  let event = '';
  let data: string[] = [];
  let id: string | null = null;
  const line = (l: string) => {
    if (l === '') {
      if (data.length) onEvent({ event: event || 'message', data: data.join('\n'), id });
      event = ''; data = []; id = null;
      return;
    }
    if (l.startsWith(':')) return;
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    let value = i < 0 ? '' : l.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
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
    },
  };
}
