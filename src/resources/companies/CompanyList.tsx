import { Button, Chip } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
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
import { switchToCompany } from '../../session/switching';
import { useSession } from '../../session/useSession';
import { CurrentRecordCard } from '../generic/CurrentRecordCard';
import { DeclaredList } from '../generic/DeclaredList';
import { DeleteSelectedButton } from '../generic/DeleteSelectedButton';
import { useListMeta } from '../generic/useListMeta';
import { companies } from './index';

/** Parent is disabled at the top: the administrator's own (root) company or a company of type root. */
export function isTopCompany(company: Company | undefined, rootCompany: Company | undefined): boolean {
  return !company || company.type === 'root' || !company.parent || company.id === rootCompany?.id;
}

export function companyFormState(mode: 'new' | 'view' | 'edit', translate: (key: string) => string, company?: RaRecord) {
  const { company: current } = getSession();
  return {
    mode,
    company,
    parent: current,
    header: translate(mode === 'new' ? 'iam.companies.newTitle' : 'iam.companies.viewTitle'),
    url: companies.routes.list,
  };
}

function CompanyActions() {
  const { selectedIds, onUnselectItems } = useListContext();
  const { company, rootCompany } = useSession();
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useNotify();
  const dataProvider = useDataProvider<IamDataProvider>();
  const [switching, setSwitching] = useState(false);
  const meta = useListMeta();

  const switchTo = async (companyId: string) => {
    setSwitching(true);
    try {
      const switched = await switchToCompany(dataProvider, companyId);
      onUnselectItems();
      notify('iam.companies.switched', { type: 'info', messageArgs: { name: switched.name } });
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setSwitching(false);
    }
  };

  return (
    <TopToolbar>
      <Button
        startIcon={<AddIcon />}
        onClick={() => navigate(companies.routes.form, { state: companyFormState('new', translate) })}
      >
        {translate('iam.actions.new')}
      </Button>
      <DeleteSelectedButton meta={meta} successMessage="iam.companies.deleted" />
      <Button
        startIcon={<SwapHorizIcon />}
        disabled={selectedIds.length !== 1 || switching}
        onClick={() => switchTo(String(selectedIds[0]))}
      >
        {translate('iam.companies.switch')}
      </Button>
      <Button
        startIcon={<ArrowUpwardIcon />}
        disabled={isTopCompany(company, rootCompany) || switching}
        onClick={() => company?.parent && switchTo(company.parent)}
      >
        {translate('iam.companies.parent')}
      </Button>
    </TopToolbar>
  );
}

export default function CompanyList() {
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
          navigate(companies.routes.form, { state: companyFormState('view', translate, record) })
        }
      />
    </>
  );
}
