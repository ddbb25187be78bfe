import { Button, Card, CardContent, Typography } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { Title, useNavigate, useTranslate } from 'react-admin';
import { useSession } from '../../session/useSession';
import { DisabledReason } from '../generic/DisabledReason';
import { useAllowed } from '../generic/useAllowed';
import type { DomainFormState } from './DomainList';
import { domains } from './index';

interface NoDomainGuidanceProps {
  /** The heading's level: h1 when the guidance is the whole screen, lower inside a card of a screen. */
  level?: 'h1' | 'h2' | 'h3';
  /** What the screen would have shown: users, groups, applications... */
  explanationKey?: string;
}

/**
 * A company with no domain yet (just created, or its last domain deleted) is a state, not a
 * failure (docs/CONSOLE.md, "Layout"): the screens that work inside a domain say so and lead to
 * the form that creates the company's first domain, instead of calling the provider without one.
 */
export function NoDomainGuidance({ level = 'h2', explanationKey = 'iam.noDomain.explanation' }: NoDomainGuidanceProps) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const { company } = useSession();
  const state: DomainFormState = { company, mode: 'new', domainCount: 0 };
  const { allowed, reason } = useAllowed('create', domains.name);
  return (
    <>
      <Typography variant="h6" component={level}>
        {translate('iam.noDomain.title', { company: company?.displayName || company?.name || '' })}
      </Typography>
      <Typography color="text.secondary" sx={{ mt: 1, mb: 2 }}>
        {translate(explanationKey)}
      </Typography>
      <DisabledReason reason={reason}>
        <Button variant="contained" startIcon={<AddIcon />} disabled={!allowed} onClick={() => navigate(domains.routes.form, { state })}>
          {translate('iam.noDomain.create')}
        </Button>
      </DisabledReason>
    </>
  );
}

/** The whole screen of a resource that lives in a domain, while the company has none. */
export function NoDomainScreen({ titleKey }: { titleKey: string }) {
  const translate = useTranslate();
  return (
    <Card sx={{ mt: 2 }} component="section" aria-labelledby="no-domain-title">
      <Title title={translate(titleKey, { smart_count: 2 })} />
      <CardContent>
        <Typography variant="overline" component="p" color="text.secondary" id="no-domain-title">
          {translate(titleKey, { smart_count: 2 })}
        </Typography>
        <NoDomainGuidance level="h1" />
      </CardContent>
    </Card>
  );
}
