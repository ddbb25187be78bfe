import { lazy } from 'react';
import BusinessIcon from '@mui/icons-material/Business';
import type { ResourceDeclaration } from '../types';

export const COMPANY_TYPES = ['customer', 'reseller'] as const;

export const companies: ResourceDeclaration = {
  name: 'companies',
  labelKey: 'iam.menu.companies',
  icon: BusinessIcon,
  menu: { group: 'onboarding', order: 10 },
  paths: {
    // The list is the children of the current company; single records live at /companys/{id}.
    collection: ({ companyId }) => `companys/${encodeURIComponent(companyId)}/childCompanys`,
    records: () => 'companys',
  },
  fields: [
    { source: 'name', kind: 'text', required: true, rule: 'id', maxLength: 128, reserved: ['companys', 'application', 'api', 'docs'] },
    { source: 'displayName', kind: 'text', required: true, maxLength: 200 },
    { source: 'description', kind: 'text', required: true, maxLength: 2000 },
    {
      source: 'type',
      kind: 'select',
      choices: COMPANY_TYPES,
      choiceLabelPrefix: 'iam.companies.types',
      defaultValue: 'customer',
    },
  ],
  // Type tells resellers (which may have child companies) from customers at a glance.
  listColumns: ['id', 'description', 'type'],
  moreColumns: ['displayName'],
  // the search box, as on every list: names, display names and descriptions of the child companies
  searchable: true,
  emptyKeys: { none: 'iam.companies.empty', filtered: 'iam.companies.emptyFiltered' },
  filters: [{ source: 'type', kind: 'select', choices: COMPANY_TYPES, choiceLabelPrefix: 'iam.companies.types', more: true }],
  formFields: ['name', 'displayName', 'description', 'type'],
  idFromField: 'name',
  defaultSort: { field: 'name', order: 'ASC' },
  pageSize: 3,
  pageWindow: 3,
  routes: { list: '/onboarding-companies', form: '/onboarding-company-new', record: '/companies/:id' },
  // a company's changes are in its parent's log; the top company's in its own
  history: { logCompany: (company) => String(company.parent ?? company.id) },
  screens: {
    list: lazy(() => import('./CompanyList')),
    form: lazy(() => import('./CompanyForm')),
  },
};

/**
 * A company and every company below it, at any depth: what the app bar's switcher searches. It lists
 * the subtree of the administrator's own company (the session's rootCompany, given as the path
 * context's company); single records are the companies' own.
 */
export const subtreeCompanies: ResourceDeclaration = {
  ...companies,
  name: 'subtreeCompanies',
  embeddedIn: 'companies',
  searchable: true,
  paths: {
    collection: ({ companyId }) => `companys/${encodeURIComponent(companyId)}/subtreeCompanys`,
    records: companies.paths.records,
  },
};
