import { useEffect, useRef, useState } from 'react';
import { Box, Button, Card, CardContent, LinearProgress, Typography } from '@mui/material';
import { Title, useDataProvider, useLocation, useNavigate, useTranslate, type RaRecord } from 'react-admin';
import { useParams } from 'react-router-dom';
import type { IamDataProvider } from '../../dataProvider';
import { useAnnounceSwitch } from '../../session/announceSwitch';
import { currentPathContext, type Company, type Domain } from '../../session/session';
import { currentTenant, switchToCompany } from '../../session/switching';
import { useSession } from '../../session/useSession';
import { RECORD_SCREENS, type RecordPlace } from '../auditEvents/recordScreens';
import { useDeclaration } from './DeclarationContext';
import { isCurrentPlace, parseRecordLink, RECORD_LINKS, type ParsedRecordLink } from './recordLink';
import { screenOf } from './screens';

type Loaded = { status: 'loading' } | { status: 'notFound' } | { status: 'failed'; message: string };

const statusOf = (error: unknown) => (error as { status?: number })?.status;

/** The record the address names, read in the place it names (nothing is switched before it is found). */
async function readLinked(dataProvider: IamDataProvider, link: ParsedRecordLink, readOnly: boolean): Promise<{ record: RaRecord; place: RecordPlace }> {
  const meta = { pathContext: { companyId: link.companyId, domainId: link.domainId } };
  let record: RaRecord | undefined;
  if (readOnly) {
    // events have no single-record route: their list, filtered by id
    ({ data: [record] } = await dataProvider.getMany(link.type, { ids: [link.id], meta }));
  } else {
    ({ data: record } = await dataProvider.getOne(link.type, { id: link.id, meta }));
  }
  if (!record || String(record.id) !== link.id) throw Object.assign(new Error('not found'), { status: 404 });
  const place: RecordPlace = {};
  if (link.type === 'domains') place.company = (await dataProvider.getOne<Company>('companies', { id: link.companyId })).data;
  if (link.type === 'companies' && record.parent) {
    // the parent decides whether Type may change; above the reader's own company it cannot be read
    try {
      place.parent = (await dataProvider.getOne<Company>('companies', { id: String(record.parent) })).data;
    } catch {
      place.parent = { id: String(record.parent), name: String(record.parent) };
    }
  }
  return { record, place };
}

/** A link without a domain, into another company: that company's primary domain. */
async function withDomain(dataProvider: IamDataProvider, link: ParsedRecordLink): Promise<ParsedRecordLink> {
  if (RECORD_LINKS[link.type]?.scope !== 'domain' || link.domainId) return link;
  const { data } = await dataProvider.getOne<Domain>('domains', { id: 'primary', meta: { pathContext: { companyId: link.companyId } } });
  return { ...link, domainId: String(data.id) };
}

/** "Not found, or not yours", with the way back to the list and to the dashboard. */
function NotReachable({ message }: { message?: string }) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const navigate = useNavigate();
  const { id = '' } = useParams();
  const type = translate(`resources.${declaration.name}.name`, { smart_count: 1, _: declaration.name }).toLowerCase();
  const list = translate(declaration.labelKey, { _: translate(`resources.${declaration.name}.name`, { smart_count: 2 }) });
  const title = translate('iam.recordLink.notFoundTitle');
  return (
    <Card sx={{ mt: 2, maxWidth: 720 }}>
      <Title title={title} />
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          {title}
        </Typography>
        <Typography sx={{ overflowWrap: 'anywhere' }}>
          {message ? translate('iam.recordLink.failed', { message }) : translate('iam.recordLink.notFound', { type, id })}
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', mt: 2 }}>
          <Button variant="contained" onClick={() => navigate(declaration.routes.list)}>
            {translate('iam.recordLink.backToList', { list })}
          </Button>
          <Button onClick={() => navigate('/dashboard')}>{translate('iam.recordLink.dashboard')}</Button>
        </Box>
      </CardContent>
    </Card>
  );
}

/**
 * A record's shareable address (`/users/{id}?company=…&domain=…`, docs/CONSOLE.md "Routes"): reached
 * from a list row, the search or a log, it has the record in its navigation state and shows the
 * record's screen at once. Reached without (a new tab, a bookmark, a ticket) or naming another place
 * than the current one, it reads the record where the address says, makes that company and domain
 * current (saying so, like every switch), then shows the same screen with the state a list row gives.
 * A record that cannot be read there (none, purged, another tenant's, not in the person's reach)
 * leaves the current place as it is and says "Not found, or not yours".
 */
export default function RecordLink() {
  const declaration = useDeclaration();
  const { id = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const translate = useTranslate();
  const dataProvider = useDataProvider<IamDataProvider>();
  const announceSwitch = useAnnounceSwitch();
  const { company, domain } = useSession();
  const current = { companyId: company?.id ?? '', domainId: domain?.id ?? '' };
  const link = parseRecordLink(declaration.name, id, location.search, current);
  // a record's screen state (a list row's, or the one built below), for the place that is current
  const hasState = Boolean((location.state as { mode?: unknown } | null)?.mode);
  const ready = hasState && isCurrentPlace(link, current);
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  // The place changed while the record showed (the switcher): its screen no longer applies, and the
  // address is not followed back; the new place's list shows instead.
  const shown = useRef<string>(undefined);
  if (ready) shown.current = location.key;
  const switchedAway = !ready && shown.current === location.key;
  const key = `${location.key}|${ready}`;

  useEffect(() => {
    if (switchedAway) navigate(declaration.routes.list, { replace: true });
    if (ready || switchedAway) return;
    let live = true;
    setLoaded({ status: 'loading' });
    (async () => {
      try {
        const found = await withDomain(dataProvider, link);
        const { record, place } = await readLinked(dataProvider, found, Boolean(declaration.readOnly));
        if (!live) return;
        if (!isCurrentPlace(found, currentPathContext())) {
          const from = currentTenant();
          announceSwitch(from, await switchToCompany(dataProvider, found.companyId, found.domainId || 'primary'));
        }
        const { state } = RECORD_SCREENS[declaration.name](record, translate, place);
        if (live) navigate(`${location.pathname}${location.search}`, { replace: true, state });
      } catch (error) {
        if (!live) return;
        const status = statusOf(error);
        // 401 signs out (the data provider's checkError); anything the place or roles refuse reads as not found
        if (status === undefined || status >= 500) setLoaded({ status: 'failed', message: (error as Error)?.message ?? String(error) });
        else setLoaded({ status: 'notFound' });
      }
    })();
    return () => {
      live = false;
    };
    // one read per address visited
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  if (ready) {
    const Screen = screenOf(declaration, declaration.routes.view ? 'view' : 'form');
    return <Screen />;
  }
  if (loaded.status === 'loading') return <LinearProgress sx={{ mt: 2 }} aria-label={translate('iam.recordLink.loading')} />;
  return <NotReachable message={loaded.status === 'failed' ? loaded.message : undefined} />;
}
