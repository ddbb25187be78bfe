/**
 * react-admin's Store, with two keys kept where docs/CONSOLE.md, "Layout" (Preferences) puts them: the theme in localStorage
 * `theme` and the side-bar state in `sidebar-expanded` (react-admin would write RaStore.theme
 * and RaStore.sidebar.open). Everything else goes to react-admin's own localStorage store.
 */
import { localStorageStore, type Store } from 'react-admin';
import { LANGUAGE_KEY, chosenLanguage } from '../i18n/language';

interface MappedKey {
  storageKey: string;
  parse: (raw: string) => unknown;
  serialize: (value: unknown) => string;
  /** The value while none is stored (the language: the browser's, docs/CONSOLE.md "Languages"). */
  initial?: () => unknown;
}

const MAPPED_KEYS: Record<string, MappedKey> = {
  theme: { storageKey: 'theme', parse: (raw) => raw, serialize: (value) => String(value) },
  'sidebar.open': {
    storageKey: 'sidebar-expanded',
    parse: (raw) => raw === 'true',
    serialize: (value) => String(Boolean(value)),
  },
  locale: { storageKey: LANGUAGE_KEY, parse: (raw) => raw, serialize: (value) => String(value), initial: chosenLanguage },
};

export function iamStore(inner: Store = localStorageStore(undefined, 'iam')): Store {
  const subscribers = new Map<string, Set<(value: unknown) => void>>();
  const notify = (key: string, value: unknown) => subscribers.get(key)?.forEach((callback) => callback(value));

  const onStorage = (event: StorageEvent) => {
    for (const [key, mapped] of Object.entries(MAPPED_KEYS)) {
      if (event.key === mapped.storageKey) notify(key, event.newValue === null ? undefined : mapped.parse(event.newValue));
    }
  };

  return {
    setup: () => {
      inner.setup();
      window.addEventListener('storage', onStorage);
    },
    teardown: () => {
      inner.teardown();
      window.removeEventListener('storage', onStorage);
    },
    getItem: <T,>(key: string, defaultValue?: T) => {
      const mapped = MAPPED_KEYS[key];
      if (!mapped) return inner.getItem(key, defaultValue);
      const raw = localStorage.getItem(mapped.storageKey);
      return raw === null ? ((mapped.initial?.() as T) ?? defaultValue) : (mapped.parse(raw) as T);
    },
    setItem: <T,>(key: string, value: T) => {
      const mapped = MAPPED_KEYS[key];
      if (!mapped) return inner.setItem(key, value);
      if (value === undefined) localStorage.removeItem(mapped.storageKey);
      else localStorage.setItem(mapped.storageKey, mapped.serialize(value));
      notify(key, value);
    },
    removeItem: (key: string) => {
      const mapped = MAPPED_KEYS[key];
      if (!mapped) return inner.removeItem(key);
      localStorage.removeItem(mapped.storageKey);
      notify(key, undefined);
    },
    removeItems: (keyPrefix: string) => inner.removeItems(keyPrefix),
    // Sign-out resets the store; theme and side bar are preferences of the browser, not the session.
    reset: () => inner.reset(),
    subscribe: (key: string, callback: (value: unknown) => void) => {
      if (!MAPPED_KEYS[key]) return inner.subscribe(key, callback);
      const set = subscribers.get(key) ?? new Set();
      set.add(callback);
      subscribers.set(key, set);
      return () => set.delete(callback);
    },
  };
}
