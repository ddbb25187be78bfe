/**
 * MUI's Tooltip, Menu and Popover, which load at the person's first input (./LazyTooltip,
 * ./LazyWhileClosed), in one lazily loaded chunk: each separately loaded module regroups the first
 * screen's shared chunks, which the first screen pays for (docs/PERFORMANCE.md, "Console bundle").
 */
export { default as Tooltip } from 'iam:mui-tooltip';
export { default as Menu } from 'iam:mui-Menu';
export { default as Popover } from 'iam:mui-Popover';
