import { describe, expect, it } from 'vitest';
import { search } from '../../../renderer/lib/search.ts';

const corpus = {
  lists: [{ id: 1, name: 'Launch', description: 'Summit push', items: [{ id: 11, content: 'Check the avalanche bulletin', completed: false } as never, { id: 12, content: 'Book the hut', completed: true } as never] }],
  posts: [{ id: 5, title: 'Weekly status', body: 'The Résumé of the week: avalanche risk low', author_name: 'Fran' } as never],
  index: [{ id: 5, title: 'Weekly status', author_name: 'Fran' } as never, { id: 6, title: 'Old kickoff notes', author_name: 'Ada' } as never],
  comments: null,
};

describe('search', () => {
  it('finds todos, lists and messages; every word must match; accents folded', () => {
    expect(search('avalanche', corpus).map((h) => `${h.kind}${h.id}`).sort()).toEqual(['message5', 'todo11']);
    expect(search('resume week', corpus).map((h) => h.id)).toEqual([5]);
    expect(search('kickoff', corpus).map((h) => h.id)).toEqual([6]);
    expect(search('summit', corpus).map((h) => h.kind)).toEqual(['list']);
    expect(search('hut zebra', corpus)).toEqual([]);
    expect(search('  ', corpus)).toEqual([]);
  });
});
