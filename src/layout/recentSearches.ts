import { useStore } from 'react-admin';

export const RECENT_SEARCHES_MAX = 8;

/** Puts `query` first; the same words typed with other letter case count as the same search. */
export function withRecentSearch(recent: readonly string[], query: string): string[] {
  const text = query.trim();
  if (!text) return [...recent];
  return [text, ...recent.filter((item) => item.toLowerCase() !== text.toLowerCase())].slice(0, RECENT_SEARCHES_MAX);
}

/**
 * The search dialog's recent searches (docs/CONSOLE.md, "Layout"), most recent first, each once.
 * react-admin's store keeps them in localStorage (`RaStoreiam.search.recent`), so they outlive the tab.
 */
export function useRecentSearches() {
  const [stored, setStored] = useStore<string[]>('search.recent', []);
  // Whatever the storage holds (edited by hand, an older console), show strings only.
  const recent = Array.isArray(stored) ? stored.filter((item) => typeof item === 'string').slice(0, RECENT_SEARCHES_MAX) : [];
  return {
    recent,
    remember: (query: string) => setStored(withRecentSearch(recent, query)),
    clear: () => setStored([]),
  };
}
