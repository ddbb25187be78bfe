import { Button, Chip } from '@mui/material';
import SwapHorizIcon from '@mui/icons-material/SwapHoriz';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import {
  TopToolbar,
  useDataProvider,
  useListContext,
  useNavigate,
  useNotify,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { useState } from 'react';
import type { IamDataProvider } from '../../dataProvider';
import { getSession, type Company } from '../../session/session';
import { useAnnounceSwitch } from '../../session/announceSwitch';
import { currentTenant, switchToCompany } from '../../session/switching';
import { useSession } from '../../session/useSession';
import { CurrentRecordCard } from '../generic/CurrentRecordCard';
import { DeclaredList } from '../generic/DeclaredList';
import { DeleteSelectedButton } from '../generic/DeleteSelectedButton';
import { DisabledReason } from '../generic/DisabledReason';
import { NewButton } from '../generic/NewButton';
import { useListMeta } from '../generic/useListMeta';
import { useDeclaration } from '../generic/DeclarationContext';
import { recordHref } from '../generic/recordLink';

/** Parent is disabled at the top: the administrator's own (root) company or a company of type root. */
export function isTopCompany(company: Company | undefined, rootCompany: Company | undefined): boolean {
  return !company || company.type === 'root' || !company.parent || company.id === rootCompany?.id;
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Why Parent is not offered, or undefined when it is (docs/CONSOLE.md, "Companies"). */
export function parentDisabledReason(company: Company | undefined, rootCompany: Company | undefined, translate: Translate) {
  if (!isTopCompany(company, rootCompany)) return undefined;
  if (company && company.id === rootCompany?.id) return translate('iam.companies.parentOwnCompany');
  return translate('iam.companies.parentNone', { name: company?.name ?? '' });
}

/** Why Switch is not offered for this selection, or undefined when it is. */
export function switchDisabledReason(selectedIds: readonly unknown[], company: Company | undefined, translate: Translate) {
  if (selectedIds.length !== 1) return translate('iam.companies.selectOneToSwitch');
  if (company && selectedIds[0] === company.id) return translate('iam.companies.alreadyCurrent', { name: company.name });
  return undefined;
}

/** The form's navigation state; `url` is the list it came from (docs/CONSOLE.md, "Routes"). */
export function companyFormState(mode: 'new' | 'view' | 'edit', translate: (key: string) => string, url: string, company?: RaRecord) {
  const { company: current } = getSession();
  return {
    mode,
    company,
    parent: current,
    header: translate(mode === 'new' ? 'iam.companies.newTitle' : 'iam.companies.viewTitle'),
    url,
  };
}

function CompanyActions() {
  const { routes } = useDeclaration();
  const { selectedIds, onUnselectItems } = useListContext();
  const { company, rootCompany } = useSession();
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useNotify();
  const announceSwitch = useAnnounceSwitch();
  const dataProvider = useDataProvider<IamDataProvider>();
  const [switching, setSwitching] = useState(false);
  const meta = useListMeta();

  const switchTo = async (companyId: string) => {
    setSwitching(true);
    try {
      const from = currentTenant();
      const switched = await switchToCompany(dataProvider, companyId);
      onUnselectItems();
      announceSwitch(from, switched);
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setSwitching(false);
    }
  };

  // A customer cannot have child companies: the provider refuses them (docs/CONSOLE.md, "Company type").
  const newReason = company?.type === 'customer' ? translate('iam.companies.customerNoChildren') : undefined;
  const switchReason = switchDisabledReason(selectedIds, company, translate);
  const parentReason = parentDisabledReason(company, rootCompany, translate);

  return (
    <TopToolbar>
      <NewButton disabledReason={newReason} onClick={() => navigate(routes.form, { state: companyFormState('new', translate, routes.list) })} />
      <DeleteSelectedButton meta={meta} successMessage="iam.companies.deleted" />
      <DisabledReason reason={switchReason}>
        <Button
          startIcon={<SwapHorizIcon />}
          disabled={Boolean(switchReason) || switching}
          onClick={() => switchTo(String(selectedIds[0]))}
        >
          {translate('iam.companies.switch')}
        </Button>
      </DisabledReason>
      <DisabledReason reason={parentReason}>
        <Button
          startIcon={<ArrowUpwardIcon />}
          disabled={Boolean(parentReason) || switching}
          onClick={() => company?.parent && switchTo(company.parent)}
        >
          {translate('iam.companies.parent')}
        </Button>
      </DisabledReason>
    </TopToolbar>
  );
}

export default function CompanyList() {
  const { routes } = useDeclaration();
  const { company } = useSession();
  const translate = useTranslate();
  const navigate = useNavigate();
  const meta = useListMeta();

  return (
    <>
      <CurrentRecordCard
        heading={translate('iam.companies.current')}
        name={company ? `${company.displayName || company.name} (${company.id})` : undefined}
        description={company?.description}
        extra={company?.type ? <Chip size="small" label={company.type} sx={{ mt: 1 }} /> : undefined}
      />
      <DeclaredList
        title={translate('iam.menu.companies')}
        meta={meta}
        actions={<CompanyActions />}
        onRowClick={(record) =>
          navigate(recordHref('companies', record.id, { companyId: '', domainId: '' }) ?? routes.form, {
            state: companyFormState('view', translate, routes.list, record),
          })
        }
      />
    </>
  );
}
