import { describe, expect, it } from 'vitest';
import { pageWindow } from './WindowPagination';

describe('page-number window', () => {
  it('shows at most the window size, centred on the current page and kept inside the range', () => {
    expect(pageWindow(1, 10, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(5, 10, 3)).toEqual([4, 5, 6]);
    expect(pageWindow(10, 10, 3)).toEqual([8, 9, 10]);
    expect(pageWindow(5, 10, 4)).toEqual([4, 5, 6, 7]);
    expect(pageWindow(1, 2, 4)).toEqual([1, 2]);
    expect(pageWindow(1, 1, 10)).toEqual([1]);
  });
});
