// Message bodies in the safe Textile subset (shared/textile.ts, D99): React elements from plain data,
// so a body can never inject markup; links open in a new tab without access to this one.
import type { ReactNode } from 'react';
import { textile, type Inline } from '../../shared/textile.ts';

function inl(xs: Inline[]): ReactNode[] {
  return xs.map((x, i) => {
    switch (x.t) {
      case 'text': return x.text;
      case 'br': return <br key={i} />;
      case 'strong': return <strong key={i}>{inl(x.children)}</strong>;
      case 'em': return <em key={i}>{inl(x.children)}</em>;
      case 'link': return <a key={i} href={x.href} target="_blank" rel="noopener noreferrer nofollow">{inl(x.children)}</a>;
    }
  });
}

export function Textile({ text }: { text: string }) {
  return (
    <div className="textile">
      {textile(text).map((b, i) => (b.t === 'p' ? <p key={i}>{inl(b.children)}</p>
        : b.t === 'ul' ? <ul key={i}>{b.items.map((it, j) => <li key={j}>{inl(it)}</li>)}</ul>
          : <ol key={i}>{b.items.map((it, j) => <li key={j}>{inl(it)}</li>)}</ol>))}
    </div>
  );
}
