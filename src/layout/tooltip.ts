/**
 * What `@mui/material`'s Tooltip is in the build (vite.config.ts, `lazyTooltip`): MUI's own, loaded
 * at the first input (./LazyTooltip). `iam:mui-tooltip` is MUI's Tooltip module itself.
 */
import { lazyTooltip } from './LazyTooltip';

export default lazyTooltip(() => import('iam:mui-tooltip'));
