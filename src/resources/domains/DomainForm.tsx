import { lazy, Suspense } from 'react';
import { LinearProgress } from '@mui/material';
import { useLocation, useTranslate } from 'react-admin';
import { getSession, updateSession, type Domain } from '../../session/session';
import { DeclaredFormScreen } from '../generic/DeclaredFormScreen';
import { isFormMode, type FormMode } from '../generic/formMode';
import { RecordTabs } from '../generic/RecordTabs';
import type { DomainFormState } from './DomainList';
import SecurityPolicyTab from './SecurityPolicyTab';

// the SCIM tab loads on first use, in the chunk of the import and export screens (docs/CONSOLE.md, "Provisioning (SCIM)")
const ProvisioningTab = lazy(() => import('../connections/screens').then((screens) => ({ default: screens.ProvisioningTab })));

export default function DomainForm() {
  const translate = useTranslate();
  const state = (useLocation().state ?? {}) as Partial<DomainFormState>;
  // Opened without navigation state: a new domain of the current company.
  const requested: FormMode = isFormMode(state.mode) ? state.mode : 'new';
  const mode: FormMode = requested !== 'new' && !state.domain ? 'new' : requested;
  const company = state.company ?? getSession().company;

  const context = { companyId: company?.id ?? '', domainId: String(state.domain?.id ?? '') };

  // General, then Security and History once the domain exists (docs/CONSOLE.md, "Domain security policy", "History and audit log")
  return (
    <RecordTabs
      idPrefix="domain"
      label={translate('iam.domains.viewTitle')}
      record={mode === 'new' ? undefined : state.domain}
      context={context}
      tabs={[
        {
          id: 'general',
          labelKey: 'iam.tabs.general',
          framed: true,
          keepMounted: true,
          content: (
            <DeclaredFormScreen
              initialMode={mode}
              record={mode === 'new' ? undefined : state.domain}
              meta={{ pathContext: { companyId: company?.id ?? '' } }}
              // no language ticked offers them all: null, as the provider keeps it (docs/CONSOLE.md, "Domains")
              toPayload={(values) => (Array.isArray(values.languages) && values.languages.length === 0 ? { ...values, languages: null } : values)}
              onSaved={(saved) => {
                // The first domain of the current company becomes the current domain (it is the primary one).
                const session = getSession();
                if (!session.domain && session.company?.id === company?.id) updateSession({ domain: saved as Domain });
              }}
              titles={{
                new: translate('iam.domains.newTitle'),
                view: translate('iam.domains.viewTitle'),
                edit: translate('iam.domains.editTitle'),
              }}
            />
          ),
        },
        // the domain's security policy: its own form, saved on its own (a domain chunk, not the first screen)
        ...(mode === 'new' || !state.domain
          ? []
          : [
              { id: 'security', labelKey: 'iam.securityPolicy.tab', content: <SecurityPolicyTab context={context} name={String(state.domain.name ?? state.domain.id)} /> },
              { id: 'provisioning', labelKey: 'iam.provisioning.tab', content: <Suspense fallback={<LinearProgress aria-label={translate('iam.provisioning.loading')} />}><ProvisioningTab context={context} /></Suspense> },
            ]),
      ]}
    />
  );
}
