import { lazy, Suspense, type ReactNode } from 'react';
import { LinearProgress } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { Company } from '../../session/session';
import type { RecordTab } from '../generic/RecordTabs';

// the tabs load on first use, in a chunk of their own (docs/CONSOLE.md, "Branding")
const BrandingTab = lazy(() => import('./BrandingTab'));
const EmailTemplatesTab = lazy(() => import('./EmailTemplatesTab'));

function Loading({ children }: { children: ReactNode }) {
  const translate = useTranslate();
  return <Suspense fallback={<LinearProgress aria-label={translate('iam.list.loading')} />}>{children}</Suspense>;
}

/** A company record screen's Branding and E-mail templates tabs, after General. */
export function BrandingTabs(company: Company): RecordTab[] {
  const name = company.displayName || company.name || company.id;
  return [
    { id: 'branding', labelKey: 'iam.branding.tab', content: <Loading><BrandingTab companyId={company.id} name={name} /></Loading> },
    { id: 'emailTemplates', labelKey: 'iam.emailTemplates.tab', content: <Loading><EmailTemplatesTab companyId={company.id} name={name} /></Loading> },
  ];
}
