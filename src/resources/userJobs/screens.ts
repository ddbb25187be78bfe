/**
 * The import and export screens and the domain screen's Provisioning tab, in one lazily loaded
 * chunk: each separately loaded module costs the first screen after sign-in about a kilobyte
 * (src/resources/lazyParts.ts says why). Nothing here imports a declaration or the registry.
 */
export { default as JobList } from './JobList';
export { default as ImportExport } from './ImportExport';
export { default as JobView } from './JobView';
export { default as ProvisioningTab } from '../domains/ProvisioningTab';
