import { useMemo } from 'react';
import { Title, useLocation, useTranslate, type RaRecord } from 'react-admin';
import { getSession, type Company, type Domain } from '../../session/session';
import { randomAlphanumeric } from '../applications/generate';
import { SectionedForm } from '../generic/SectionedForm';
import { useCompanyDomains } from '../applications/useCompanyDomains';
import { isFormMode, type FormMode } from '../generic/formMode';
import { API_SECTIONS } from './index';

export interface ApiFormState {
  company?: Company;
  domain?: Domain;
  api?: RaRecord;
  mode?: FormMode;
}

const IDENTITY = ['id', 'domain', 'companyId', 'signingSecret'];

export function apiPayload(values: Record<string, unknown>, mode: FormMode, companyId: string) {
  if (mode === 'new') return { ...values, companyId };
  const payload = { ...values };
  for (const field of IDENTITY) delete payload[field];
  return payload;
}

/** The API form: a wizard on new (General Settings, Token Setting, RBAC Settings, Access Settings), sections otherwise. */
export function ApiFormScreen({ state = {}, onDone, title }: { state?: ApiFormState; onDone?: () => void; title?: string }) {
  const translate = useTranslate();
  const requested: FormMode = isFormMode(state.mode) ? state.mode : 'new';
  const mode: FormMode = requested !== 'new' && !state.api ? 'new' : requested;
  const company = state.company ?? getSession().company;
  const domain = state.domain ?? getSession().domain;
  const { data: domains = [] } = useCompanyDomains(company?.id);
  const domainChoices = useMemo(() => {
    const known = domains.map((candidate) => ({ id: candidate.id, name: candidate.name }));
    const own = (state.api?.domain as string | undefined) ?? domain?.id;
    return own && !known.some((choice) => choice.id === own) ? [...known, { id: own, name: own }] : known;
  }, [domains, domain?.id, state.api?.domain]);
  // A new API's id is 32 random letters and digits (docs/CONSOLE.md, "Constants").
  const defaults = useMemo(() => ({ id: randomAlphanumeric(), domain: domain?.id }), [domain?.id]);

  return (
    <SectionedForm
      initialMode={mode}
      record={mode === 'new' ? undefined : state.api}
      defaults={defaults}
      sections={API_SECTIONS}
      title={title ?? translate(mode === 'new' ? 'iam.apis.newTitle' : 'iam.apis.viewTitle')}
      locked={(current) => (current === 'new' ? [] : ['domain'])}
      choices={{ domain: domainChoices }}
      toPayload={(values, current) => apiPayload(values, current, company?.id ?? '')}
      nameField="name"
      secret={{ field: 'signingSecret', labelKey: 'iam.apis.signingSecret' }}
      onDone={onDone}
    />
  );
}

export default function ApiForm() {
  const translate = useTranslate();
  const state = (useLocation().state ?? {}) as ApiFormState;
  return (
    <>
      <Title title={translate(state.api && state.mode && state.mode !== 'new' ? 'iam.apis.viewTitle' : 'iam.apis.newTitle')} />
      <ApiFormScreen state={state} />
    </>
  );
}
