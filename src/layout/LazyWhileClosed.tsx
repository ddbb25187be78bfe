import { createElement, forwardRef, useSyncExternalStore, type ComponentType, type Ref } from 'react';

/** What MUI's Menu and Popover take that matters here: a closed one shows nothing. */
interface ClosedProps {
  open: boolean;
}

/** The input that makes the menus load: any pointer, key, touch or focus, anywhere in the page. */
const FIRST_INPUT = ['pointerover', 'pointerdown', 'keydown', 'touchstart', 'focusin'] as const;

/**
 * MUI's Menu and Popover (with MenuList and Grow) loaded at the person's first input instead of with
 * the first screen after sign-in, where the app bar's menus (the user menu, the language menu,
 * notifications, help) and react-admin's page title (its preferences editor's popover) use them
 * (docs/PERFORMANCE.md, "Console bundle"). vite.config.ts (`lazyWhileClosed`) makes every
 * `@mui/material` Menu and Popover such a component in the build. A closed Menu or Popover renders
 * nothing a person can see or reach (`keepMounted` keeps it in the page, hidden: react-admin's
 * language menu), and none opens before an input; one asked to open before MUI's has arrived loads
 * it and shows once it is there. A kept-mounted one is in the page from then on.
 */
export function lazyWhileClosed<P extends ClosedProps>(loadReal: () => Promise<{ default: ComponentType<P & { ref?: Ref<unknown> }> }>) {
  let Real: ComponentType<P & { ref?: Ref<unknown> }> | undefined;
  let loading: Promise<unknown> | undefined;
  const listeners = new Set<() => void>();

  const load = () => {
    loading ??= loadReal().then((module) => {
      Real = module.default;
      listeners.forEach((listener) => listener());
    });
    return loading;
  };
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  const firstInput = () => {
    FIRST_INPUT.forEach((type) => window.removeEventListener(type, firstInput, true));
    void load();
  };
  if (typeof window !== 'undefined') FIRST_INPUT.forEach((type) => window.addEventListener(type, firstInput, { capture: true, passive: true }));

  return forwardRef<HTMLDivElement, P>(function LazyWhileClosed(props, ref) {
    const Loaded = useSyncExternalStore(subscribe, () => Real, () => Real);
    if (Loaded) return createElement(Loaded, { ...(props as P), ref });
    if (props.open) void load();
    return null;
  });
}
