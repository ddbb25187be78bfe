/**
 * What `@mui/material`'s Popover is in the build (vite.config.ts, `lazyWhileClosed`): MUI's own,
 * loaded at the first input (./LazyWhileClosed). `iam:mui-Popover` is MUI's Popover module itself,
 * in one chunk with the other parts that load then (./firstInput.ts).
 */
import type { PopoverProps } from '@mui/material/Popover';
import { lazyWhileClosed } from './LazyWhileClosed';

export default lazyWhileClosed<PopoverProps>(() => import('./firstInput').then((parts) => ({ default: parts.Popover })));
