import { useMemo } from 'react';
import { Title, useLocation, useTranslate, type RaRecord } from 'react-admin';
import type { Company, Domain } from '../../session/session';
import { getSession } from '../../session/session';
import { isFormMode, type FormMode } from '../generic/formMode';
import { randomAlphanumeric } from './generate';
import { APPLICATION_SECTIONS } from './index';
import { SectionedForm } from '../generic/SectionedForm';
import { useCompanyDomains } from './useCompanyDomains';
import { cleanUriList } from '../generic/uris';

export interface ApplicationFormState {
  company?: Company;
  domain?: Domain;
  application?: RaRecord;
  mode?: FormMode;
  header?: string;
}

const URI_LISTS = ['client_logout_uri', 'redirect_uris', 'allowed_web_orgins'] as const;
/** What the provider stores and returns; the secret travels only in the create request. */
const READ_ONLY_IDENTITY = ['id', 'client_id', 'domain', 'companyId', 'client_secret'];

export function applicationPayload(values: Record<string, unknown>, mode: FormMode, companyId: string) {
  const payload: Record<string, unknown> = { ...values };
  for (const list of URI_LISTS) payload[list] = cleanUriList(values[list] as string[] | undefined);
  if (mode === 'new') return { ...payload, id: values.client_id, companyId };
  for (const field of READ_ONLY_IDENTITY) delete payload[field];
  return payload;
}

interface ApplicationFormProps {
  state?: ApplicationFormState;
  onDone?: () => void;
}

/** The application form: a wizard on new, expandable sections in view and edit (docs/CONSOLE.md, "Applications"). */
export function ApplicationFormScreen({ state = {}, onDone }: ApplicationFormProps) {
  const translate = useTranslate();
  const requested: FormMode = isFormMode(state.mode) ? state.mode : 'new';
  const mode: FormMode = requested !== 'new' && !state.application ? 'new' : requested;
  const company = state.company ?? getSession().company;
  const domain = state.domain ?? getSession().domain;
  const { data: domains = [] } = useCompanyDomains(company?.id);
  const domainChoices = useMemo(() => {
    const known = domains.map((candidate) => ({ id: candidate.id, name: candidate.name }));
    const own = (state.application?.domain as string | undefined) ?? domain?.id;
    return own && !known.some((choice) => choice.id === own) ? [...known, { id: own, name: own }] : known;
  }, [domains, domain?.id, state.application?.domain]);
  // Generated once per screen: the wizard keeps them while moving between steps.
  const defaults = useMemo(
    () => ({ client_id: randomAlphanumeric(), client_secret: randomAlphanumeric(), domain: domain?.id }),
    [domain?.id],
  );
  const title =
    state.header ?? translate(mode === 'new' ? 'iam.applications.newTitle' : 'iam.applications.viewTitle');

  return (
    <SectionedForm
      initialMode={mode}
      record={mode === 'new' ? undefined : state.application}
      defaults={defaults}
      sections={APPLICATION_SECTIONS}
      title={title}
      hidden={(current) => (current === 'new' ? [] : ['client_secret'])}
      locked={(current) => (current === 'new' ? [] : ['client_id', 'domain'])}
      choices={{ domain: domainChoices }}
      toPayload={(values, current) => applicationPayload(values, current, company?.id ?? '')}
      nameField="client_name"
      secret={{ field: 'client_secret', labelKey: 'resources.applications.fields.client_secret' }}
      onDone={onDone}
    />
  );
}

export default function ApplicationForm() {
  const translate = useTranslate();
  const state = (useLocation().state ?? {}) as ApplicationFormState;
  return (
    <>
      <Title title={translate(state.application && state.mode && state.mode !== 'new' ? 'iam.applications.viewTitle' : 'iam.applications.newTitle')} />
      <ApplicationFormScreen state={state} />
    </>
  );
}
