/**
 * The stylis plugins of the right-to-left emotion cache (src/i18n/Direction.tsx), loaded only when
 * Arabic is chosen. In the build, `stylis` here and in @mui/stylis-plugin-rtl is a copy of its own
 * (vite.config.ts, `rtlStylisCopy`): sharing emotion's stylis with the console made the bundler
 * split it out of the first screen's chunks into one more (1.9 kB gzipped, docs/PERFORMANCE.md).
 */
import rtlPlugin from '@mui/stylis-plugin-rtl';
import { prefixer } from 'stylis';

export const rtlStylisPlugins = [prefixer, rtlPlugin];
