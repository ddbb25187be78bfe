/**
 * The console laid out in its language's direction (docs/CONSOLE.md, "Languages"): as it is for
 * left-to-right languages; for Arabic, MUI's theme with `direction: 'rtl'` and an emotion cache
 * whose stylis plugins flip every left and right of the styles. Only the stylis plugins
 * (src/i18n/rtlPlugins.ts: @mui/stylis-plugin-rtl and the prefixer, with a stylis copy of their own in
 * the build) load when Arabic is chosen: emotion and MUI's ThemeProvider are the console's own
 * already, and a chunk sharing them split the first screen's (docs/PERFORMANCE.md).
 */
import createCache, { type EmotionCache } from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { ThemeProvider, type Theme } from '@mui/material/styles';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useLocaleState, useTranslate } from 'react-admin';
import { isRtl } from './language';

let rtlCache: EmotionCache | undefined;

export function Direction({ children }: { children: ReactNode }) {
  const [locale] = useLocaleState();
  const translate = useTranslate();
  const rtl = isRtl(locale);
  // the theme's words in the language too: the name of every spinner (src/layout/theme.ts)
  const loading = translate('iam.list.loading');
  const theme = useMemo(
    () => (outer: Theme): Theme => ({
      ...outer,
      direction: rtl ? 'rtl' : 'ltr',
      components: {
        ...outer.components,
        MuiCircularProgress: { ...outer.components?.MuiCircularProgress, defaultProps: { ...outer.components?.MuiCircularProgress?.defaultProps, 'aria-label': loading } },
      },
    }),
    [rtl, loading],
  );
  const [cache, setCache] = useState(rtlCache);
  useEffect(() => {
    if (rtl && !cache) {
      void import('./rtlPlugins').then(({ rtlStylisPlugins }) =>
        setCache((rtlCache ??= createCache({ key: 'muirtl', stylisPlugins: rtlStylisPlugins }))),
      );
    }
  }, [rtl, cache]);
  const themed = <ThemeProvider theme={theme}>{children}</ThemeProvider>;
  if (!rtl) return themed;
  // nothing until the right-to-left styles are there, rather than a left-to-right flash
  return cache ? <CacheProvider value={cache}>{themed}</CacheProvider> : null;
}
