import { useState } from 'react';
import { Button, Chip } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import StarIcon from '@mui/icons-material/Star';
import {
  TopToolbar,
  useDataProvider,
  useListContext,
  useNavigate,
  useNotify,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import type { IamDataProvider } from '../../dataProvider';
import { setPrimaryDomain } from '../../session/switching';
import { useSession } from '../../session/useSession';
import type { Company } from '../../session/session';
import { CurrentRecordCard } from '../generic/CurrentRecordCard';
import { DeclaredList } from '../generic/DeclaredList';
import { DeleteSelectedButton } from '../generic/DeleteSelectedButton';
import { useListMeta } from '../generic/useListMeta';
import { domains } from './index';

export interface DomainFormState {
  company?: Company;
  domain?: RaRecord;
  mode: 'new' | 'view' | 'edit';
  domainCount?: number;
}

function DomainActions() {
  const { selectedIds, onUnselectItems, total = 0 } = useListContext();
  const { company, domain: current } = useSession();
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useNotify();
  const dataProvider = useDataProvider<IamDataProvider>();
  const [settingPrimary, setSettingPrimary] = useState(false);
  const meta = useListMeta();

  const makePrimary = async () => {
    if (!company) return;
    setSettingPrimary(true);
    try {
      const chosen = await setPrimaryDomain(dataProvider, company.id, String(selectedIds[0]));
      onUnselectItems();
      notify('iam.domains.primaryChanged', { type: 'info', messageArgs: { name: chosen?.name ?? '' } });
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setSettingPrimary(false);
    }
  };

  const newState: DomainFormState = { company, mode: 'new', domainCount: total + (current ? 1 : 0) };

  return (
    <TopToolbar>
      <Button startIcon={<AddIcon />} onClick={() => navigate(domains.routes.form, { state: newState })}>
        {translate('iam.actions.new')}
      </Button>
      <DeleteSelectedButton meta={meta} successMessage="iam.domains.deleted" />
      <Button startIcon={<StarIcon />} disabled={selectedIds.length !== 1 || settingPrimary} onClick={makePrimary}>
        {translate('iam.domains.setPrimary')}
      </Button>
    </TopToolbar>
  );
}

export default function DomainList() {
  const { company, domain } = useSession();
  const translate = useTranslate();
  const navigate = useNavigate();
  // The current domain has its own panel; the list holds the others.
  const meta = useListMeta(domain ? { condition: `id,!=,${domain.id}` } : {});

  return (
    <>
      <CurrentRecordCard
        heading={translate('iam.domains.current')}
        name={domain?.name}
        description={domain?.description}
        extra={domain?.primary ? <Chip size="small" label={translate('iam.domains.primary')} sx={{ mt: 1 }} /> : undefined}
      />
      <DeclaredList
        title={translate('iam.menu.domains')}
        meta={meta}
        actions={<DomainActions />}
        onRowClick={(record) =>
          navigate(domains.routes.form, { state: { company, domain: record, mode: 'view' } satisfies DomainFormState })
        }
      />
    </>
  );
}
