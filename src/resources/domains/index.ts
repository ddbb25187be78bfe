import { lazy } from 'react';
import DnsIcon from '@mui/icons-material/Dns';
import type { ResourceDeclaration } from '../types';

/** The languages of the provider's pages and e-mails (server/i18n). */
export const LANGUAGES = ['en', 'fr', 'de', 'es', 'ja', 'ar'] as const;

export const domains: ResourceDeclaration = {
  name: 'domains',
  labelKey: 'iam.menu.domains',
  icon: DnsIcon,
  menu: { group: 'onboarding', order: 20 },
  paths: {
    collection: ({ companyId }) => `companys/${encodeURIComponent(companyId)}/domainNames`,
  },
  fields: [
    { source: 'name', kind: 'text', required: true, rule: 'id', maxLength: 128, reserved: ['primary'] },
    { source: 'description', kind: 'text', required: true, maxLength: 2000 },
    // the languages its hosted pages and e-mails offer (none chosen: all) and its default (docs/CONSOLE.md, "Domains")
    { source: 'languages', kind: 'checkboxes', choices: LANGUAGES, choiceLabelPrefix: 'iam.languageNames' },
    { source: 'defaultLanguage', kind: 'select', choices: LANGUAGES, choiceLabelPrefix: 'iam.languageNames' },
  ],
  listColumns: ['id', 'description'],
  searchable: true,
  emptyKeys: { none: 'iam.domains.empty', filtered: 'iam.domains.emptyFiltered' },
  filters: [{ source: 'primary', kind: 'boolean', more: true }],
  formFields: ['name', 'description', 'languages', 'defaultLanguage'],
  idFromField: 'name',
  defaultSort: { field: 'name', order: 'ASC' },
  pageSize: 3,
  pageWindow: 4,
  routes: { list: '/onboarding-domains', form: '/onboarding-domain-new', record: '/domains/:id' },
  history: {},
  screens: {
    list: lazy(() => import('./DomainList')),
    form: lazy(() => import('./DomainForm')),
  },
};
