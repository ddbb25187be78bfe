import { Alert, Button } from '@mui/material';
import { Title, useLocation, useNavigate, useTranslate } from 'react-admin';
import { goBack } from '../generic/goBack';
import { getSession } from '../../session/session';
import { CodeSnippet } from '../applications/CodeSnippet';
import { apiSnippet } from '../applications/quickStart';
import { useDiscovery } from '../applications/useDiscovery';
import { linkedPart } from '../generic/recordLink';
import { RecordTabs } from '../generic/RecordTabs';
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

/**
 * /apis-view: Quick Start, Settings, Permission, Domain and History tabs (docs/CONSOLE.md, "APIs and
 * permission scopes" and "History and audit log"); at a record address, the tab and scope it names.
 */
export default function ApiView() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const location = useLocation();
  const state = (location.state ?? {}) as ApiFormState;
  // a permission scope's address (`?tab=permission&scope=…`) opens the tab on that scope
  const { scope } = linkedPart(location.search);
  const api = state.api;
  const close = () => goBack(navigate, '/apis');

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
    <RecordTabs
      idPrefix="api"
      title={String(api.name ?? translate('iam.apis.viewTitle'))}
      record={api}
      context={{ companyId, domainId: String(api.domain ?? '') }}
      tabs={[
        { id: 'quickStart', labelKey: 'iam.apis.tabs.quickStart', content: <QuickStart api={api} /> },
        {
          id: 'settings',
          labelKey: 'iam.apis.tabs.settings',
          framed: true,
          content: (
            <ApiFormScreen state={{ ...state, mode: 'view' }} onDone={close} title={translate('iam.apis.tabs.settings')} />
          ),
        },
        { id: 'permission', labelKey: 'iam.apis.tabs.permission', content: <PermissionTab key={scope} apiId={String(api.id)} scope={scope} context={{ companyId, domainId: String(api.domain ?? '') }} onClose={close} /> },
        {
          id: 'domain',
          labelKey: 'iam.apis.tabs.domain',
          content: <DomainTab domainId={String(api.domain ?? '')} companyId={companyId} onClose={close} />,
        },
      ]}
    />
  );
}
