import {
  cloneElement,
  createElement,
  forwardRef,
  isValidElement,
  useCallback,
  useLayoutEffect,
  useRef,
  useSyncExternalStore,
  type ComponentType,
  type ReactElement,
  type Ref,
} from 'react';
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
 * pointer is hovered again, so a tooltip asked for meanwhile opens.
 */
export function lazyTooltip(loadReal: () => Promise<{ default: RealTooltip }>) {
  let Real: RealTooltip | undefined;
  let loading: Promise<unknown> | undefined;
  /** Where the focus and the pointer were when MUI's tooltip arrived. */
  let focusedAtSwap: Element | null = null;
  let hoveredAtSwap: Element | null = null;
  const listeners = new Set<() => void>();

  const load = () => {
    loading ??= loadReal().then((module) => {
      focusedAtSwap = document.activeElement;
      const hovered = document.querySelectorAll(':hover');
      hoveredAtSwap = hovered[hovered.length - 1] ?? null;
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

  const LazyTooltip = forwardRef<Element, TooltipProps>(function LazyTooltip(props, ref) {
    const Loaded = useSyncExternalStore(subscribe, () => Real, () => Real);
    // the child's node before the swap (kept when React detaches it, to compare it with the focus)
    const before = useRef<Element | null>(null);
    const keep = useCallback((node: Element | null) => {
      if (node) before.current = node;
    }, []);
    const after = useRef<Element | null>(null);
    const { title, describeChild, disableHoverListener, open } = props;
    const children = isValidElement(props.children) ? props.children : createElement('span', null, props.children);
    const beforeRef = useForkRef((children.props as { ref?: Ref<Element> }).ref, ref, keep);
    const afterRef = useForkRef(ref, after);
    if (open && !Loaded) void load();

    useLayoutEffect(() => {
      const old = before.current;
      const now = after.current;
      if (!Loaded || !old || !now) return;
      before.current = null;
      if (focusedAtSwap === old && now instanceof HTMLElement) now.focus();
      if (hoveredAtSwap && old.contains(hoveredAtSwap)) now.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    }, [Loaded]);

    if (Loaded) return createElement(Loaded, { ...props, ref: afterRef });
    // the name or description MUI's Tooltip gives its closed child
    const titleIsString = typeof title === 'string';
    const nameOrDescription = describeChild
      ? { title: titleIsString && !disableHoverListener ? title : undefined }
      : { 'aria-label': titleIsString ? title : undefined };
    return cloneElement(children as ReactElement<Record<string, unknown>>, {
      ...nameOrDescription,
      ...(children.props as Record<string, unknown>),
      ref: beforeRef,
    });
  });
  return LazyTooltip;
}
