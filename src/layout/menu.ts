/**
 * What `@mui/material`'s Menu is in the build (vite.config.ts, `lazyWhileClosed`): MUI's own, loaded
 * at the first input (./LazyWhileClosed). `iam:mui-Menu` is MUI's Menu module itself,
 * in one chunk with the other parts that load then (./firstInput.ts).
 */
import type { MenuProps } from '@mui/material/Menu';
import { lazyWhileClosed } from './LazyWhileClosed';

export default lazyWhileClosed<MenuProps>(() => import('./firstInput').then((parts) => ({ default: parts.Menu })));
