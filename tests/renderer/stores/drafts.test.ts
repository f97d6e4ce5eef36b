import { beforeEach, describe, expect, it } from 'vitest';
import { draftKey, readDraft, writeDraft } from '../../../renderer/stores/drafts.ts';

beforeEach(() => localStorage.clear());

describe('drafts', () => {
  it('are kept per user and per record, and removed with null', () => {
    writeDraft(draftKey(1, 'comment:post:7'), 'mine');
    writeDraft(draftKey(2, 'comment:post:7'), 'theirs');
    writeDraft(draftKey(1, 'item:3'), { content: 'x', resp: '', due: '' });
    expect(readDraft(draftKey(1, 'comment:post:7'))).toBe('mine');
    expect(readDraft(draftKey(2, 'comment:post:7'))).toBe('theirs');
    expect(readDraft(draftKey(1, 'item:3'))).toEqual({ content: 'x', resp: '', due: '' });
    writeDraft(draftKey(1, 'comment:post:7'), null);
    expect(readDraft(draftKey(1, 'comment:post:7'))).toBeNull();
    expect(localStorage.getItem('bivouac:draft:2:comment:post:7')).toBe('"theirs"');
  });
  it('a damaged entry reads as no draft', () => {
    localStorage.setItem(draftKey(1, 'post:new:4'), '{not json');
    expect(readDraft(draftKey(1, 'post:new:4'))).toBeNull();
  });
});
