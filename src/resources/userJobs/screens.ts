/**
 * The import and export screens and the domain screen's Provisioning tab. They load with the
 * Connections screens' chunk (../connections/screens.ts re-exports them): a lazily loaded chunk of
 * their own cost the first screen after sign-in 0.6 kB more, as every separately loaded module that
 * uses the first screen's shared modules does (src/resources/lazyParts.ts says why). Nothing here
 * imports a declaration or the registry.
 */
export { default as JobList } from './JobList';
export { default as ImportExport } from './ImportExport';
export { default as JobView } from './JobView';
export { default as ProvisioningTab } from '../domains/ProvisioningTab';
