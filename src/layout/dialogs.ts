/**
 * The app bar's dialogs (search, company and domain switcher), in one lazily loaded chunk: each
 * separately loaded module that uses the first screen's shared modules makes the bundler split them
 * into more, smaller chunks, which the first screen pays for (docs/PERFORMANCE.md, "Console bundle").
 */
export { default as SearchDialog } from './SearchDialog';
export { default as TenantDialog } from './TenantDialog';
