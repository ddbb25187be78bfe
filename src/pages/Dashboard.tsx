import { Box, Button, Card, CardContent, Link, List, ListItem, ListItemText, Typography } from '@mui/material';
import { keyframes } from '@mui/material/styles';
import { LinkBase, Title, useCanAccess, useGetList, useTranslate } from 'react-admin';
import { NoDomainGuidance } from '../resources/domains/NoDomainGuidance';
import { usePrimaryDomainId } from '../resources/domains/usePrimaryDomain';
import { domainSettingsHref, domainSettingsState } from '../resources/domains/settingsLink';
import { recordHref } from '../resources/generic/recordLink';
import type { Domain } from '../session/session';
import { useListMeta } from '../resources/generic/useListMeta';
import { useSession } from '../session/useSession';

/** docs/CONSOLE.md, "Layout" (Dashboard): at most 5 child companies and 5 other domains. */
const DASHBOARD_ROWS = 5;

interface Row {
  id: string | number;
  name?: string;
  description?: string;
  primary?: boolean;
}

const pulse = keyframes`
  0% {
    opacity: 1;
  }
  50% {
    opacity: 0.4;
  }
  100% {
    opacity: 1;
  }
`;

/**
 * What <Skeleton variant="rectangular" height={120}> renders (same classes and styles: the text
 * colour at 11%, 13% in dark mode, pulsing), without the Skeleton module in the first screen.
 */
function LoadingBlock({ label }: { label: string }) {
  return (
    <Box
      component="span"
      className="MuiSkeleton-root MuiSkeleton-rectangular MuiSkeleton-pulse"
      aria-label={label}
      sx={(theme) => {
        const reducedMotion = (theme as { motion?: { reducedMotion?: string } }).motion?.reducedMotion;
        return {
          display: 'block',
          height: 120,
          backgroundColor: theme.vars
            ? theme.vars.palette.Skeleton.bg
            : theme.alpha(theme.palette.text.primary, theme.palette.mode === 'light' ? 0.11 : 0.13),
          animation: `${pulse} 2s ease-in-out 0.5s infinite`,
          // As MUI: no animation when the theme's motion.reducedMotion says so.
          ...(reducedMotion === 'always' && { animation: 'none' }),
          ...(reducedMotion === 'system' && { '@media (prefers-reduced-motion: reduce)': { animation: 'none' } }),
        };
      }}
    />
  );
}

/** Where a row's View leads: the record's own screen, and what its list row would hand that screen. */
interface Destination {
  to: string;
  state?: unknown;
}

interface RowListProps {
  rows: Row[];
  isPending: boolean;
  /** The list could not be read: says so, with a way to read it again. */
  error?: unknown;
  onRetry?: () => void;
  current?: Row;
  /** Domains: marks the primary one, whichever row it is (the current one need not be primary). */
  primaryId?: string | number;
  destination: (row: Row) => Destination;
}

function RowList({ rows, isPending, error, onRetry, current, primaryId, destination }: RowListProps) {
  const translate = useTranslate();
  const all = current ? [current, ...rows] : rows;
  if (error) {
    return (
      <Box role="alert">
        <Typography color="error" gutterBottom>
          {translate('iam.dashboard.error')}
        </Typography>
        <Button size="small" variant="outlined" onClick={onRetry}>
          {translate('iam.dashboard.retry')}
        </Button>
      </Box>
    );
  }
  if (isPending) return <LoadingBlock label={translate('iam.list.loading')} />;
  if (all.length === 0) return <Typography color="text.secondary">{translate('iam.dashboard.empty')}</Typography>;
  return (
    <List dense>
      {all.map((row, index) => {
        const name = (row.name ?? String(row.id)).toUpperCase();
        const { to, state } = destination(row);
        return (
          <ListItem
            key={`${row.id}`}
            divider
            secondaryAction={
              // the record's own screen (docs/CONSOLE.md, "Layout", Dashboard): a real link, so it opens in a new tab too
              <Link component={LinkBase} to={to} state={state} underline="hover" aria-label={translate('iam.dashboard.viewOf', { name })}>
                {translate('iam.dashboard.view')}
              </Link>
            }
          >
            <ListItemText
              primary={
                <>
                  {`${name}${index === 0 && current ? ` · ${translate('iam.dashboard.current')}` : ''}`}
                  {primaryId !== undefined && row.id === primaryId && (
                    // drawn like a small outlined Chip: MUI's Chip would add about 4 kB to the first screen's budget
                    <Box
                      component="span"
                      sx={{ ml: 1, px: 1, py: 0.25, border: 1, borderColor: 'primary.main', color: 'primary.main', borderRadius: 4, typography: 'caption' }}
                    >
                      {translate('iam.dashboard.primary')}
                    </Box>
                  )}
                </>
              }
              secondary={row.description}
            />
          </ListItem>
        );
      })}
    </List>
  );
}

/** The markup and look of MUI's CardHeader with a title only (an h5 title in a padded flex row). */
function CardTitle({ id, children, all }: { id: string; children: string; all: { to: string; label: string } }) {
  return (
    <Box className="MuiCardHeader-root" sx={{ display: 'flex', alignItems: 'center', p: 2 }}>
      <Box className="MuiCardHeader-content" sx={{ flex: '1 1 auto' }}>
        <Typography variant="h5" component="h2" id={id} className="MuiCardHeader-title" sx={{ display: 'block' }}>
          {children}
        </Typography>
      </Box>
      {/* the card's whole list, with its tools */}
      <Link component={LinkBase} to={all.to} underline="hover" sx={{ flexShrink: 0 }}>
        {all.label}
      </Link>
    </Box>
  );
}

/** The lists the cards show a part of (the declarations' routes, written here: they are not in the first screen). */
const COMPANIES_LIST = '/onboarding-companies';
const DOMAINS_LIST = '/onboarding-domains';

/**
 * The dashboard shows what the person may reach here (docs/CONSOLE.md, "Roles"): each card once her
 * roles let her read its list.
 */
export default function Dashboard() {
  const translate = useTranslate();
  const { user, company, domain } = useSession();
  const meta = useListMeta();
  const companiesShown = useCanAccess({ resource: 'companies', action: 'list' }).canAccess === true;
  const domainsShown = useCanAccess({ resource: 'domains', action: 'list' }).canAccess === true;
  const children = useGetList<Row>(
    'companies',
    { pagination: { page: 1, perPage: DASHBOARD_ROWS }, sort: { field: 'name', order: 'ASC' }, meta },
    // as react-admin's lists: a failure shows at once, with Try again
    { enabled: companiesShown, retry: false },
  );
  // One more than shown, in case the current domain is among them. Without a current domain the
  // company has none yet: the card leads to its first one instead.
  const domains = useGetList<Row>(
    'domains',
    { pagination: { page: 1, perPage: DASHBOARD_ROWS + 1 }, sort: { field: 'name', order: 'ASC' }, meta },
    { enabled: Boolean(domain) && domainsShown, retry: false },
  );
  const primaryId = usePrimaryDomainId() ?? (domain?.primary ? domain.id : undefined);
  const otherDomains = (domains.data ?? []).filter((row) => row.id !== domain?.id).slice(0, DASHBOARD_ROWS);

  return (
    <>
      <Title title={translate('iam.menu.dashboard')} />
      <Typography variant="h4" component="h1" sx={{ mt: 2 }}>
        {translate('iam.dashboard.hello', { displayName: user?.displayName ?? '' })}
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 2 }}>
        {translate('iam.dashboard.happening', { company: company?.name ?? '' })}
      </Typography>
      {/* Two equal columns from md up, one below: what Grid (spacing 2, size xs 12 / md 6) laid out. */}
      <Box sx={{ display: 'grid', gap: 2, alignItems: 'start', gridTemplateColumns: { xs: 'minmax(0, 1fr)', md: 'repeat(2, minmax(0, 1fr))' } }}>
        {companiesShown && (
          <Card component="section" aria-labelledby="dashboard-companies">
            <CardTitle id="dashboard-companies" all={{ to: COMPANIES_LIST, label: translate('iam.dashboard.allCompanies') }}>
              {translate('iam.dashboard.companies')}
            </CardTitle>
            <CardContent>
              <RowList
                rows={children.data ?? []}
                isPending={children.isPending}
                error={children.error}
                onRetry={() => void children.refetch()}
                current={company}
                destination={(row) => ({ to: recordHref('companies', row.id, { companyId: '', domainId: '' })! })}
              />
            </CardContent>
          </Card>
        )}
        {domainsShown && (
          <Card component="section" aria-labelledby="dashboard-domains">
            <CardTitle id="dashboard-domains" all={{ to: DOMAINS_LIST, label: translate('iam.dashboard.allDomains') }}>
              {translate('iam.dashboard.domains')}
            </CardTitle>
            <CardContent>
              {company && domain ? (
                <RowList
                  rows={otherDomains}
                  isPending={domains.isPending}
                  error={domains.error}
                  onRetry={() => void domains.refetch()}
                  current={domain}
                  primaryId={primaryId}
                  destination={(row) => ({ to: domainSettingsHref(company, row as Domain), state: domainSettingsState(company, row as Domain) })}
                />
              ) : (
                <NoDomainGuidance level="h3" />
              )}
            </CardContent>
          </Card>
        )}
      </Box>
    </>
  );
}
