import { Alert, Button } from '@mui/material';
import { Title, useLocation, useNavigate, useTranslate } from 'react-admin';
import { getSession } from '../../session/session';
import { CodeSnippet } from '../applications/CodeSnippet';
import { apiSnippet } from '../applications/quickStart';
import { useDiscovery } from '../applications/useDiscovery';
import { ViewTabs } from '../applications/ViewTabs';
import { ApiFormScreen, type ApiFormState } from './ApiForm';
import { DomainTab } from './DomainTab';
import { PermissionTab } from './PermissionTab';

function QuickStart({ api }: { api: Record<string, unknown> }) {
  const translate = useTranslate();
  const { discovery, error } = useDiscovery();
  return (
    <CodeSnippet
      intro={translate('iam.quickStart.api')}
      code={
        discovery &&
        apiSnippet(discovery, {
          identifier: String(api.identifier ?? ''),
          signingAlgorithm: api.signingAlgorithm as string | undefined,
        })
      }
      error={error}
    />
  );
}

/** /apis-view: Quick Start, Settings, Permission and Domain tabs (docs/CONSOLE.md, "Applications" and "APIs and permission scopes"). */
export default function ApiView() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as ApiFormState;
  const api = state.api;
  const close = () => navigate(-1);

  if (!api) {
    return (
      <>
        <Title title={translate('iam.apis.viewTitle')} />
        <Alert
          severity="info"
          sx={{ mt: 2 }}
          action={<Button onClick={() => navigate('/apis')}>{translate('iam.errors.backToList')}</Button>}
        >
          {translate('iam.errors.noContext')}
        </Alert>
      </>
    );
  }

  const companyId = String(api.companyId ?? state.company?.id ?? getSession().company?.id ?? '');
  return (
    <ViewTabs
      idPrefix="api"
      title={String(api.name ?? translate('iam.apis.viewTitle'))}
      tabs={[
        { labelKey: 'iam.apis.tabs.quickStart', content: <QuickStart api={api} /> },
        {
          labelKey: 'iam.apis.tabs.settings',
          framed: true,
          content: (
            <ApiFormScreen state={{ ...state, mode: 'view' }} onDone={close} title={translate('iam.apis.tabs.settings')} />
          ),
        },
        { labelKey: 'iam.apis.tabs.permission', content: <PermissionTab apiId={String(api.id)} onClose={close} /> },
        {
          labelKey: 'iam.apis.tabs.domain',
          content: <DomainTab domainId={String(api.domain ?? '')} companyId={companyId} onClose={close} />,
        },
      ]}
    />
  );
}
