/**
 * What `@mui/material`'s Tooltip is in the build (vite.config.ts, `lazyTooltip`): MUI's own, loaded
 * at the first input (./LazyTooltip). `iam:mui-tooltip` is MUI's Tooltip module itself,
 * in one chunk with the other parts that load then (./firstInput.ts).
 */
import { lazyTooltip } from './LazyTooltip';

export default lazyTooltip(() => import('./firstInput').then((parts) => ({ default: parts.Tooltip })));
