import { Alert, Box, Button } from '@mui/material';
import { Title, useLocation, useNavigate, useTranslate } from 'react-admin';
import { applicationSnippet } from './quickStart';
import { ApplicationFormScreen, type ApplicationFormState } from './ApplicationForm';
import { CodeSnippet } from './CodeSnippet';
import { RotateSecretButton } from './RotateSecretButton';
import { useDiscovery } from './useDiscovery';
import { getSession } from '../../session/session';
import { RecordTabs } from '../generic/RecordTabs';

function QuickStart({ application }: { application: Record<string, unknown> }) {
  const translate = useTranslate();
  const { discovery, error } = useDiscovery();
  const appType = String(application.app_type ?? 'SPA');
  return (
    <CodeSnippet
      intro={translate(`iam.quickStart.application.${appType}`, {
        _: translate('iam.quickStart.application.SPA'),
      })}
      code={
        discovery &&
        applicationSnippet(discovery, {
          client_id: String(application.client_id ?? application.id),
          app_type: appType,
          redirect_uris: application.redirect_uris as string[] | undefined,
          audience: application.audience as string | undefined,
        })
      }
      error={error}
    />
  );
}

/**
 * /applications-view: Quick Start, Settings and History tabs (docs/CONSOLE.md, "Applications" and
 * "History and audit log").
 */
export default function ApplicationView() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const state = (useLocation().state ?? {}) as ApplicationFormState;
  const application = state.application;

  if (!application) {
    return (
      <>
        <Title title={translate('iam.applications.viewTitle')} />
        <Alert
          severity="info"
          sx={{ mt: 2 }}
          action={<Button onClick={() => navigate('/applications')}>{translate('iam.errors.backToList')}</Button>}
        >
          {translate('iam.errors.noContext')}
        </Alert>
      </>
    );
  }

  return (
    <RecordTabs
      idPrefix="application"
      title={String(application.client_name ?? translate('iam.applications.viewTitle'))}
      record={application}
      context={{
        companyId: String(application.companyId ?? state.company?.id ?? getSession().company?.id ?? ''),
        domainId: String(application.domain ?? ''),
      }}
      tabs={[
        { id: 'quickStart', labelKey: 'iam.applications.tabs.quickStart', content: <QuickStart application={application} /> },
        {
          id: 'settings',
          labelKey: 'iam.applications.tabs.settings',
          framed: true,
          content: (
            <>
              {/* Confidential clients only: SPA and native apps are public and never use their secret. */}
              {(application.app_type === 'web' || application.app_type === 'machine') && (
                <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: 2 }}>
                  <RotateSecretButton
                    application={{ id: String(application.id), client_name: application.client_name }}
                    disabledReason={application.status === 'deleted' ? translate('iam.rotateSecret.deleted') : undefined}
                  />
                </Box>
              )}
              <ApplicationFormScreen state={{ ...state, mode: 'view', header: translate('iam.applications.tabs.settings') }} />
            </>
          ),
        },
      ]}
    />
  );
}
