/** MUI's own Menu and Popover modules, as vite.config.ts (`lazyWhileClosed`) names them for ./firstInput.ts. */
declare module 'iam:mui-Menu' {
  export { default } from '@mui/material/Menu';
}
declare module 'iam:mui-Popover' {
  export { default } from '@mui/material/Popover';
}
