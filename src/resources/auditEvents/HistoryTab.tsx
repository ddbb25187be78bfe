import { Alert, Box, LinearProgress, Link, Stack, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router-dom';
import { ListContextProvider, useListController, useTranslate } from 'react-admin';
import { useSession } from '../../session/useSession';
import { rowsPerPageOptions, WindowPagination } from '../generic/WindowPagination';
import type { RecordTabProps, ResourceDeclaration } from '../types';
import { AuditDiff } from './AuditDiff';
import { AuditActor, AuditTime } from './AuditCells';
import type { AuditEvent } from './vocabulary';

/** Records a History tab shows at once (docs/CONSOLE.md, "Constants"). */
export const HISTORY_PAGE_SIZE = 10;

/** The company whose log holds this record's changes (docs/CONSOLE.md, "History and audit log"). */
export function historyLogCompany({ declaration, record, context }: RecordTabProps): string {
  return declaration.history?.logCompany?.(record, context) ?? context.companyId;
}

function Entry({ event }: { event: AuditEvent }) {
  const translate = useTranslate();
  return (
    <Box component="li" sx={{ listStyle: 'none', py: 2, '& + li': { borderTop: 1, borderColor: 'divider' } }}>
      <Stack direction="row" spacing={2} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'baseline', mb: 1 }}>
        <Typography component="h3" variant="subtitle1" sx={{ fontWeight: 600 }}>
          {translate(`iam.audit.actions.${event.action}`, { _: event.action })}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          <AuditTime iso={event.occurredAt} />
        </Typography>
        <Typography component="div" variant="body2">
          {translate('iam.history.by')} <AuditActor event={event} />
        </Typography>
        {event.actorIp && (
          <Typography variant="body2" color="text.secondary">
            {translate('iam.history.from', { ip: event.actorIp })}
          </Typography>
        )}
      </Stack>
      <AuditDiff changes={event.changes} resourceType={event.resourceType} />
    </Box>
  );
}

/**
 * A record's History tab (docs/CONSOLE.md, "History and audit log"): its audit records newest
 * first, read a page at a time from the log of the company that keeps them, each with who, when,
 * from where and the fields it changed. A company's changes are in its parent's log; an
 * administrator cannot read the log above their own company, and the tab says so.
 */
export default function HistoryTab(props: RecordTabProps & { log: ResourceDeclaration }) {
  // log: the audit records' own declaration, given at run time (see ../lazyParts)
  const { declaration, record, log } = props;
  const translate = useTranslate();
  const { rootCompany, company } = useSession();
  const companyId = historyLogCompany(props);
  const resourceType = declaration.history?.resourceType ?? declaration.name;
  // The administrator's own company, when it has a parent: its log is out of reach (the API answers 404).
  const ownCompanyAbove = resourceType === 'companies' && record.id === rootCompany?.id && companyId !== String(record.id);
  const list = useListController<AuditEvent>({
    resource: log.name,
    filter: { resourceType, resourceId: String(record.id) },
    sort: log.defaultSort,
    perPage: HISTORY_PAGE_SIZE,
    disableSyncWithLocation: true,
    storeKey: false,
    queryOptions: {
      meta: { pathContext: { companyId, domainId: '' } },
      enabled: !ownCompanyAbove,
      // the tab says what went wrong; no notification besides
      onError: () => undefined,
    },
  });
  const status = (list.error as { status?: number } | null)?.status;
  // the same records in the Audit log, filtered to this record, when its log is the one the Audit log shows
  const inAuditLog = companyId === company?.id && log.routes.list;
  const heading = (
    <Stack direction="row" spacing={2} useFlexGap sx={{ flexWrap: 'wrap', alignItems: 'baseline', justifyContent: 'space-between', mb: 1 }}>
      <Typography variant="h6" component="h2">
        {translate('iam.history.title')}
      </Typography>
      {inAuditLog && !ownCompanyAbove && (
        <Link component={RouterLink} to={`${log.routes.list}?filter=${encodeURIComponent(JSON.stringify({ resourceType, resourceId: String(record.id) }))}`}>
          {translate('iam.history.inAuditLog')}
        </Link>
      )}
    </Stack>
  );

  if (ownCompanyAbove || status === 404) {
    return (
      <>
        {heading}
        <Alert severity="info">{translate('iam.history.ownCompany')}</Alert>
      </>
    );
  }
  return (
    <ListContextProvider value={list}>
      {heading}
      {list.error ? (
        <Alert severity="error">{translate('iam.history.failed', { message: (list.error as Error).message || String(status ?? '') })}</Alert>
      ) : list.isPending ? (
        <Box role="status" aria-label={translate('iam.list.loading')} sx={{ py: 2 }}>
          <LinearProgress />
        </Box>
      ) : !list.data?.length ? (
        <Typography color="text.secondary">{translate('iam.audit.empty')}</Typography>
      ) : (
        <>
          {list.isFetching && <LinearProgress aria-label={translate('iam.list.loading')} />}
          <Box component="ol" sx={{ p: 0, m: 0 }} aria-label={translate('iam.history.title')}>
            {list.data.map((event) => (
              <Entry key={event.id} event={event} />
            ))}
          </Box>
          <WindowPagination window={log.pageWindow} rowsPerPageOptions={rowsPerPageOptions(HISTORY_PAGE_SIZE)} />
        </>
      )}
    </ListContextProvider>
  );
}
