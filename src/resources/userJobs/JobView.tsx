import { useState } from 'react';
import { Alert, Box, Button, Card, CardContent, LinearProgress, Stack, Typography } from '@mui/material';
import DownloadIcon from '@mui/icons-material/Download';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Title, useLocation, useNavigate, useTranslate } from 'react-admin';
import { currentPathContext, type PathContext } from '../../session/session';
import { uiLocale } from '../../i18n/language';
import { formatDateTime } from '../generic/dateTime';
import { DisabledReason } from '../generic/DisabledReason';
import { cancelJob, download, importDryRun, isActive, jobUrl, readJob, type Job, type JobKind } from './api';
import { useAllowedAt } from './held';
import { jobHref } from './jobHref';
import { JobStatusChip, useJobKindLabel } from './JobStatus';

/** How often a moving job is asked for again. */
const POLL_MS = 1000;

const COUNTS = ['rowsRead', 'created', 'updated', 'skipped', 'failed'] as const;

/** The job the address names, and where: `?kind=&id=&company=&domain=` (the current place when absent). */
function useAddressedJob(): { kind: JobKind; id: string; context: PathContext } {
  const query = new URLSearchParams(useLocation().search);
  const current = currentPathContext();
  return {
    kind: query.get('kind') === 'export' ? 'export' : 'import',
    id: query.get('id') ?? '',
    context: { companyId: query.get('company') || current.companyId, domainId: query.get('domain') || current.domainId },
  };
}

/** The counts as a list of terms and numbers, announced as they change. */
function Counts({ job }: { job: Job }) {
  const translate = useTranslate();
  const counts = job.kind === 'export' ? (['rowsRead'] as const) : COUNTS;
  return (
    <Box component="dl" aria-live="polite" sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(120px, 1fr))', gap: 2, my: 2 }}>
      {counts.map((count) => (
        <Box key={count}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {translate(`iam.userJobs.counts.${job.kind === 'export' && count === 'rowsRead' ? 'exported' : count}`)}
          </Typography>
          <Typography component="dd" variant="h5" sx={{ m: 0 }} color={count === 'failed' && job.failed > 0 ? 'error' : undefined}>
            {(job[count] ?? 0).toLocaleString(uiLocale())}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

/**
 * /syncing-results-view (docs/CONSOLE.md, "Import and export"): one job, asked for again every
 * second while it moves; its progress, counts and outcome, the error file of an import, the file of an
 * export, a dry run's Import for real, Cancel.
 */
export default function JobView() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const kindLabel = useJobKindLabel();
  const { kind, id, context } = useAddressedJob();
  const allowed = useAllowedAt(context, ['users:import']);
  const [acting, setActing] = useState(false);
  const [failure, setFailure] = useState<string>();
  const job = useQuery({
    queryKey: ['userJobs', context.companyId, context.domainId, kind, id],
    queryFn: () => readJob(context, kind, id),
    enabled: Boolean(id),
    refetchInterval: (query) => (query.state.data && !isActive(query.state.data) ? false : POLL_MS),
    retry: false,
  });

  const act = async (action: () => Promise<unknown>) => {
    setActing(true);
    setFailure(undefined);
    try {
      await action();
    } catch (error) {
      setFailure((error as Error).message);
    } finally {
      setActing(false);
    }
  };

  const fileName = (suffix: string) => `${kind}-${id}${suffix}`;
  const title = job.data ? kindLabel(job.data) : translate('iam.userJobs.jobTitle');
  const data = job.data;

  return (
    <Box sx={{ mt: 2, maxWidth: 960 }}>
      <Title title={title} />
      <Card>
        <CardContent>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}>
            <Typography variant="h5" component="h1">
              {title}
            </Typography>
            {data && <JobStatusChip job={data} />}
          </Stack>
          {job.isPending && id && <LinearProgress sx={{ mt: 2 }} aria-label={translate('iam.userJobs.loading')} />}
          {(!id || job.error) && (
            <Alert severity="error" sx={{ mt: 2 }}>
              {translate('iam.userJobs.readFailed', { message: job.error?.message ?? translate('iam.userJobs.noJob') })}
            </Alert>
          )}
          {data && (
            <>
              <Typography color="text.secondary" sx={{ mt: 1, overflowWrap: 'anywhere' }}>
                {translate('iam.userJobs.summary', {
                  file: data.options?.fileName ?? translate(`iam.userJobs.formats.${data.options?.format ?? 'csv'}`),
                  created: formatDateTime(data.createdAt),
                })}
              </Typography>
              {data.kind === 'import' && data.options && (
                <Typography color="text.secondary" variant="body2">
                  {translate('iam.userJobs.optionsSummary', {
                    match: translate(`iam.userJobs.matches.${data.options.match ?? 'none'}`),
                    groups: translate(data.options.groups ? 'iam.userJobs.groupsOn' : 'iam.userJobs.groupsOff'),
                  })}
                </Typography>
              )}
              {data.options?.dryRun && (
                <Alert severity="info" sx={{ mt: 2 }}>
                  {translate('iam.userJobs.dryRunNote')}
                </Alert>
              )}
              <Box sx={{ mt: 2 }}>
                <LinearProgress
                  variant={isActive(data) ? 'indeterminate' : 'determinate'}
                  value={100}
                  color={data.status === 'failed' ? 'error' : data.status === 'done' ? 'success' : 'primary'}
                  aria-label={translate('iam.userJobs.progress')}
                  aria-valuetext={translate(`iam.userJobs.statuses.${data.status}`)}
                />
              </Box>
              <Counts job={data} />
              {data.finishedAt && (
                <Typography variant="body2" color="text.secondary">
                  {translate('iam.userJobs.finishedAt', { at: formatDateTime(data.finishedAt) })}
                </Typography>
              )}
              {data.error && (
                <Alert severity="error" sx={{ mt: 2 }}>
                  {data.error}
                </Alert>
              )}
            </>
          )}
          {failure && (
            <Alert severity="error" sx={{ mt: 2 }}>
              {failure}
            </Alert>
          )}
          <Stack direction="row" spacing={1} sx={{ mt: 2, flexWrap: 'wrap', rowGap: 1 }}>
            {data?.kind === 'import' && !isActive(data) && data.failed > 0 && (
              <Button
                variant="contained"
                startIcon={<DownloadIcon />}
                disabled={acting}
                onClick={() => act(() => download(`${jobUrl(context, 'import', id)}/errors`, fileName('-errors.csv')))}
              >
                {translate('iam.userJobs.downloadErrors')}
              </Button>
            )}
            {data?.kind === 'export' && data.status === 'done' && (
              <Button
                variant="contained"
                startIcon={<DownloadIcon />}
                disabled={acting}
                onClick={() => act(() => download(`${jobUrl(context, 'export', id)}/file`, fileName(data.options?.format === 'jsonl' ? '.jsonl' : '.csv')))}
              >
                {translate('iam.userJobs.downloadFile')}
              </Button>
            )}
            {data?.kind === 'import' && data.options?.dryRun && data.status === 'done' && (
              <DisabledReason reason={allowed['users:import'].reason}>
                <Button
                  variant="contained"
                  disabled={acting || !allowed['users:import'].allowed}
                  onClick={() =>
                    act(async () => {
                      const real = await importDryRun(context, id);
                      navigate(jobHref('import', real.id, context));
                    })
                  }
                >
                  {translate('iam.userJobs.importForReal')}
                </Button>
              </DisabledReason>
            )}
            {data?.kind === 'import' && isActive(data) && (
              <DisabledReason reason={allowed['users:import'].reason}>
                <Button
                  variant="outlined"
                  disabled={acting || !allowed['users:import'].allowed}
                  onClick={() =>
                    act(async () => {
                      const cancelled = await cancelJob(context, id);
                      queryClient.setQueryData(['userJobs', context.companyId, context.domainId, kind, id], cancelled);
                    })
                  }
                >
                  {translate('iam.userJobs.cancel')}
                </Button>
              </DisabledReason>
            )}
            <Button onClick={() => navigate('/syncing-results')}>{translate('iam.userJobs.pastJobs')}</Button>
            <Button onClick={() => navigate('/users-import')}>{translate('iam.userJobs.another')}</Button>
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
}
