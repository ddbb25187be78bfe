/**
 * The Connections screens and the user screen's Linked identities tab, in one lazily loaded chunk:
 * each separately loaded module costs the first screen after sign-in about a kilobyte
 * (src/resources/lazyParts.ts says why). Nothing here imports a declaration or the registry.
 */
export { default as ConnectionList } from './ConnectionList';
export { default as ConnectionWizard } from './ConnectionWizard';
export { default as ConnectionView } from './ConnectionView';
export { default as LinkedIdentities } from '../users/LinkedIdentities';
// the import and export screens and the domain's Provisioning tab: here rather than a chunk of their own (0.6 kB less on the first screen)
export { JobList, ImportExport, JobView, ProvisioningTab } from '../userJobs/screens';
