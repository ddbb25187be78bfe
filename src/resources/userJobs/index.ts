import { lazy } from 'react';
import PeopleIcon from '@mui/icons-material/People';
import type { ResourceDeclaration } from '../types';

const screen = (name: 'JobList' | 'ImportExport' | 'JobView') =>
  lazy(() => import('../connections/screens').then((screens) => ({ default: screens[name] })));

/**
 * A domain's import and export jobs (docs/CONSOLE.md, "Import and export"): the jobs list, which the
 * template's "Sync'ing results" entry opens (layout/menuTree.ts), the Import / Export screen and a
 * job's screen, loaded on first use with the Connections screens (./screens.ts says why). Import needs `users:import`, export
 * `users:export`: the same roles hold both.
 */
export const userJobs: ResourceDeclaration = {
  name: 'userJobs',
  labelKey: 'iam.userJobs.title',
  icon: PeopleIcon,
  permission: 'users',
  readPermission: 'users:import',
  needsDomain: true,
  readOnly: true,
  paths: {
    collection: ({ companyId, domainId }) => `companys/${encodeURIComponent(companyId)}/domainNames/${encodeURIComponent(domainId)}/importJobs`,
  },
  fields: [
    { source: 'createdAt', kind: 'dateTime' },
    { source: 'status', kind: 'text' },
  ],
  listColumns: ['createdAt', 'status'],
  formFields: [],
  defaultSort: { field: 'createdAt', order: 'DESC' },
  pageSize: 25,
  pageWindow: 10,
  routes: { list: '/syncing-results', form: '/users-import', view: '/syncing-results-view' },
  screens: { list: screen('JobList'), form: screen('ImportExport'), view: screen('JobView') },
};
