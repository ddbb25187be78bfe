/**
 * Right to left, for Arabic only (docs/CONSOLE.md, "Languages"): MUI's theme with `direction: 'rtl'`
 * and an emotion cache whose stylis plugins flip every left and right of the styles. Its own chunk,
 * loaded by Direction.tsx when Arabic is chosen.
 */
import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import { ThemeProvider, type Theme } from '@mui/material/styles';
import rtlPlugin from '@mui/stylis-plugin-rtl';
import type { ReactNode } from 'react';
import { prefixer } from 'stylis';

const cache = createCache({ key: 'muirtl', stylisPlugins: [prefixer, rtlPlugin] });
const rtlTheme = (outer: Theme): Theme => ({ ...outer, direction: 'rtl' });

export default function RightToLeft({ children }: { children: ReactNode }) {
  return (
    <CacheProvider value={cache}>
      <ThemeProvider theme={rtlTheme}>{children}</ThemeProvider>
    </CacheProvider>
  );
}
