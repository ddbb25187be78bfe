import { useLocation, useTranslate } from 'react-admin';
import { getSession, type Company } from '../../session/session';
import { DeclaredFormScreen } from '../generic/DeclaredFormScreen';
import { isFormMode, type FormMode } from '../generic/formMode';
import { RecordTabs } from '../generic/RecordTabs';
import { BrandingTabs } from '../branding';

interface CompanyFormState {
  mode?: unknown;
  company?: Company;
  parent?: Company;
  header?: string;
  url?: string;
}

/**
 * The Type rule (docs/CONSOLE.md, "Company type"): for a reseller company the Type field is shown
 * only when the parent company is of type reseller; otherwise it is hidden. Our reading: the rule is about the saved company. When
 * it is a reseller, its Type stays visible (and changeable) only under a reseller parent; under any
 * other parent it is hidden and keeps its value. Customers and new companies show Type, except the
 * administrator's own company: only an administrator of its parent may change its type (the server
 * refuses it too, docs/CONSOLE.md). Hidden means not editable: view mode shows the type of every
 * company read-only (docs/CONSOLE.md, "Company type").
 */
export function isTypeFieldHidden(
  company: Partial<Company> | undefined,
  parent: Partial<Company> | undefined,
  ownCompanyId: string | undefined = getSession().rootCompany?.id,
): boolean {
  if (company?.id !== undefined && company.id === ownCompanyId) return true;
  return company?.type === 'reseller' && parent?.type !== 'reseller';
}

export default function CompanyForm() {
  const translate = useTranslate();
  const state = (useLocation().state ?? {}) as CompanyFormState;
  // Opened without navigation state (typed URL, reload): a new company under the current one.
  const mode: FormMode = isFormMode(state.mode) ? state.mode : 'new';
  const company = mode === 'new' ? undefined : state.company;
  const parent = state.parent ?? getSession().company;
  const effectiveMode: FormMode = mode !== 'new' && !company ? 'new' : mode;

  // General, and History once the company exists (docs/CONSOLE.md, "History and audit log")
  return (
    <RecordTabs
      idPrefix="company"
      label={translate('iam.companies.viewTitle')}
      record={effectiveMode === 'new' ? undefined : company}
      context={{ companyId: parent?.id ?? '', domainId: '' }}
      tabs={[
        {
          id: 'general',
          labelKey: 'iam.tabs.general',
          framed: true,
          keepMounted: true,
          content: (
            <DeclaredFormScreen
              initialMode={effectiveMode}
              record={company ?? { type: 'customer' }}
              titles={{
                new: translate('iam.companies.newTitle'),
                view: translate('iam.companies.viewTitle'),
                edit: translate('iam.companies.editTitle'),
              }}
              // View mode shows every company's type read-only; the rule only keeps it from being changed.
              hidden={(currentMode) => (currentMode !== 'view' && isTypeFieldHidden(company, parent) ? ['type'] : [])}
              toPayload={(values, currentMode) =>
                currentMode === 'new' ? { ...values, type: values.type ?? 'customer', parent: parent?.id } : values
              }
            />
          ),
        },
        // Branding and E-mail templates once the company exists (docs/CONSOLE.md, "Branding")
        ...(effectiveMode === 'new' || !company ? [] : BrandingTabs(company)),
      ]}
    />
  );
}
