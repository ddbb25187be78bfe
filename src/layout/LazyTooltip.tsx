import {
  cloneElement,
  createElement,
  forwardRef,
  isValidElement,
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type ComponentType,
  type ReactElement,
  type Ref,
} from 'react';
import { flushSync } from 'react-dom';
import type { TooltipProps } from '@mui/material/Tooltip';
import { useForkRef } from '@mui/material/utils';

type RealTooltip = ComponentType<TooltipProps & { ref?: Ref<unknown> }>;

/** The input that makes the tooltips load: any pointer, key, touch or focus, anywhere in the page. */
const FIRST_INPUT = ['pointerover', 'pointerdown', 'keydown', 'touchstart', 'focusin'] as const;

/**
 * MUI's Tooltip (with Popper and @popperjs/core, about 10 kB gzipped) loaded at the person's first
 * input instead of with the first screen after sign-in, where react-admin's app-bar buttons and the
 * side bar use it (docs/PERFORMANCE.md, "Console bundle"). vite.config.ts (`lazyTooltip`) makes every
 * `@mui/material` Tooltip this component in the build. Until MUI's is there, the child is rendered
 * as MUI renders it (with the title as its accessible name, or its description with `describeChild`);
 * nothing can show a tooltip before the first input anyway. When it arrives, every tooltip becomes
 * MUI's, which mounts the child anew: the child that had the focus gets it back, and the one under the
 * pointer is hovered again, so a tooltip asked for meanwhile opens; a child anchoring an open menu
 * (aria-expanded, aria-owns) changes after the menu has closed.
 */
export function lazyTooltip(loadReal: () => Promise<{ default: RealTooltip }>) {
  let Real: RealTooltip | undefined;
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
  // A pointer held down on a child: swapping now would mount the child anew between its press and
  // its release, and the click would land on no button (a first click lost on a just-loaded
  // screen, seen on a busy machine). The swap waits for the release; the click comes first.
  let held = false;
  const released = new Set<() => void>();
  if (typeof window !== 'undefined') {
    window.addEventListener('pointerdown', () => (held = true), { capture: true, passive: true });
    for (const type of ['pointerup', 'pointercancel'] as const) {
      window.addEventListener(
        type,
        () => {
          held = false;
          released.forEach((run) => setTimeout(run, 0));
          released.clear();
        },
        { capture: true, passive: true },
      );
    }
  }
  // The swap is decided and committed in one task of its own (flushSync): decided in an effect, React
  // would commit it in a later task, and a press landing in between would be released on a new node.
  const afterRelease = (run: () => void) => {
    let cancelled = false;
    const attempt = () => {
      if (cancelled) return;
      if (held) released.add(attempt);
      else flushSync(run);
    };
    const timer = setTimeout(attempt, 0);
    return () => {
      cancelled = true;
      clearTimeout(timer);
      released.delete(attempt);
    };
  };

  const LazyTooltip = forwardRef<Element, TooltipProps>(function LazyTooltip(props, ref) {
    const Loaded = useSyncExternalStore(subscribe, () => Real, () => Real);
    const [swapped, setSwapped] = useState(false);
    // the child's node before the swap (kept as React detaches it) and after
    const before = useRef<Element | null>(null);
    const keep = useCallback((node: Element | null) => {
      if (node) before.current = node;
    }, []);
    const after = useRef<Element | null>(null);
    const carried = useRef({ focus: false, hover: false });
    const deferred = useRef(false);
    const { title, describeChild, disableHoverListener, open } = props;
    const children = isValidElement(props.children) ? props.children : createElement('span', null, props.children);
    const childProps = children.props as Record<string, unknown>;
    const beforeRef = useForkRef(childProps.ref as Ref<Element> | undefined, ref, keep);
    const afterRef = useForkRef(ref, after);
    // a child anchoring an open menu keeps its node until the menu has closed: the menu is placed
    // at that node and gives the focus back to it
    const anchoring = childProps['aria-expanded'] === true || childProps['aria-expanded'] === 'true' || Boolean(childProps['aria-owns']);
    if (open && !Loaded) void load();

    useEffect(() => {
      if (!Loaded || swapped) return;
      if (anchoring) {
        deferred.current = true;
        return;
      }
      const swap = () => {
        const node = before.current;
        carried.current = { focus: node !== null && document.activeElement === node, hover: node?.matches(':hover') ?? false };
        setSwapped(true);
      };
      if (!deferred.current) return afterRelease(swap);
      // its menu closed: swap once the menu's closing transition has given the focus back
      const timer = setTimeout(swap, 500);
      return () => clearTimeout(timer);
    }, [Loaded, swapped, anchoring]);

    useLayoutEffect(() => {
      const now = after.current;
      if (!swapped || !now) return;
      if (carried.current.focus && now instanceof HTMLElement) now.focus();
      if (carried.current.hover) now.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    }, [swapped]);

    if (Loaded && swapped) return createElement(Loaded, { ...props, ref: afterRef });
    // the name or description MUI's Tooltip gives its closed child
    const titleIsString = typeof title === 'string';
    const nameOrDescription = describeChild
      ? { title: titleIsString && !disableHoverListener ? title : undefined }
      : { 'aria-label': titleIsString ? title : undefined };
    return cloneElement(children as ReactElement<Record<string, unknown>>, { ...nameOrDescription, ...childProps, ref: beforeRef });
  });
  return LazyTooltip;
}
