import { beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryStore } from 'react-admin';
import { iamStore } from './store';

beforeEach(() => localStorage.clear());

describe('console store', () => {
  it('keeps the theme under localStorage "theme" and the side bar under "sidebar-expanded"', () => {
    const inner = memoryStore();
    const store = iamStore(inner);
    store.setup();
    const listener = vi.fn();
    store.subscribe('sidebar.open', listener);

    store.setItem('theme', 'dark');
    store.setItem('sidebar.open', false);
    expect(localStorage.getItem('theme')).toBe('dark');
    expect(localStorage.getItem('sidebar-expanded')).toBe('false');
    expect(localStorage.getItem('RaStore.theme')).toBeNull();
    expect(listener).toHaveBeenCalledWith(false);

    localStorage.setItem('sidebar-expanded', 'true');
    expect(store.getItem('sidebar.open')).toBe(true);
    expect(store.getItem('theme')).toBe('dark');
  });

  it('falls back to the default when nothing is stored and delegates other keys', () => {
    const inner = memoryStore();
    const store = iamStore(inner);
    store.setup();
    expect(store.getItem('theme', 'light')).toBe('light');
    store.setItem('companies.list', { perPage: 6 });
    expect(inner.getItem('companies.list')).toEqual({ perPage: 6 });
  });

  it('keeps the preferences when the session resets the store', () => {
    const store = iamStore(memoryStore());
    store.setItem('theme', 'dark');
    store.reset();
    expect(localStorage.getItem('theme')).toBe('dark');
  });
});
