/** MUI's own Tooltip module, as vite.config.ts (`lazyTooltip`) names it for ./firstInput.ts. */
declare module 'iam:mui-tooltip' {
  export { default } from '@mui/material/Tooltip';
}
