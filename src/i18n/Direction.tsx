/**
 * The console laid out in its language's direction (docs/CONSOLE.md, "Languages"): as it is for
 * left-to-right languages; for Arabic, inside RightToLeft (rtl.tsx), loaded only then.
 */
import { useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { useLocaleState } from 'react-admin';
import { isRtl } from './language';

type Wrapper = ComponentType<{ children: ReactNode }>;
let loaded: Wrapper | undefined;

export function Direction({ children }: { children: ReactNode }) {
  const [locale] = useLocaleState();
  const rtl = isRtl(locale);
  const [RightToLeft, setRightToLeft] = useState<Wrapper | undefined>(() => loaded);
  useEffect(() => {
    if (rtl && !RightToLeft) void import('./rtl').then((module) => setRightToLeft(() => (loaded = module.default)));
  }, [rtl, RightToLeft]);
  if (!rtl) return <>{children}</>;
  // nothing until the right-to-left styles are there, rather than a left-to-right flash
  return RightToLeft ? <RightToLeft>{children}</RightToLeft> : null;
}
