import { Alert, Box, Button, Card, LinearProgress, Link, Stack, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Link as RouterLink } from 'react-router-dom';
import { Title, useNavigate, useTranslate } from 'react-admin';
import { useSession } from '../../session/useSession';
import { uiLocale } from '../../i18n/language';
import { formatDateTime } from '../generic/dateTime';
import { isActive, listJobs, type Job } from './api';
import { jobHref } from './jobHref';
import { JobStatusChip, useJobKindLabel } from './JobStatus';

const NUMBERS = ['rowsRead', 'created', 'updated', 'skipped', 'failed'] as const;

/**
 * /syncing-results, the side bar's "Sync'ing results" (docs/CONSOLE.md, "Import and export"): the
 * domain's import and export jobs, newest first, each opening its screen; asked for again while one
 * moves. A kind the person may not read says so, the other still shows.
 */
export default function JobList() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const kindLabel = useJobKindLabel();
  const { company, domain } = useSession();
  const context = { companyId: company?.id ?? '', domainId: domain?.id ?? '' };
  const jobs = useQuery({
    queryKey: ['userJobs', context.companyId, context.domainId, 'list'],
    queryFn: async () => {
      const [imports, exports] = await Promise.allSettled([listJobs(context, 'import'), listJobs(context, 'export')]);
      const rows = [...(imports.status === 'fulfilled' ? imports.value : []), ...(exports.status === 'fulfilled' ? exports.value : [])];
      rows.sort((a, b) => String(b.createdAt).localeCompare(String(a.createdAt)));
      const failures = [imports, exports].flatMap((answer) => (answer.status === 'rejected' ? [(answer.reason as Error).message] : []));
      if (failures.length === 2) throw new Error(failures[0]);
      return { rows, failures };
    },
    refetchInterval: (query) => (query.state.data?.rows.some(isActive) ? 2000 : false),
    retry: false,
  });
  const title = translate('iam.userJobs.title');
  const open = (job: Job) => navigate(jobHref(job.kind, job.id, context));

  return (
    <Box sx={{ mt: 2 }}>
      <Title title={title} />
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', rowGap: 1 }}>
        <Typography variant="h5" component="h1">
          {title}
        </Typography>
        <Stack direction="row" spacing={1}>
          <Button onClick={() => void jobs.refetch()}>{translate('iam.userJobs.refresh')}</Button>
          <Button variant="contained" onClick={() => navigate('/users-import')}>
            {translate('iam.userJobs.screenTitle')}
          </Button>
        </Stack>
      </Stack>
      <Card>
        {jobs.isPending && <LinearProgress aria-label={translate('iam.userJobs.loading')} />}
        {jobs.error && (
          <Alert severity="error" action={<Button onClick={() => void jobs.refetch()}>{translate('iam.list.retry')}</Button>}>
            {translate('iam.list.failed', { message: jobs.error.message })}
          </Alert>
        )}
        {jobs.data?.failures.map((failure) => (
          <Alert key={failure} severity="warning">
            {translate('iam.list.failed', { message: failure })}
          </Alert>
        ))}
        {jobs.data && jobs.data.rows.length === 0 && (
          <Typography sx={{ p: 2 }} color="text.secondary" role="status">
            {translate('iam.userJobs.empty')}
          </Typography>
        )}
        {jobs.data && jobs.data.rows.length > 0 && (
          <TableContainer>
            <Table size="small" aria-label={title}>
              <TableHead>
                <TableRow>
                  <TableCell>{translate('iam.userJobs.columns.createdAt')}</TableCell>
                  <TableCell>{translate('iam.userJobs.columns.kind')}</TableCell>
                  <TableCell>{translate('iam.userJobs.columns.file')}</TableCell>
                  <TableCell>{translate('iam.userJobs.columns.status')}</TableCell>
                  {NUMBERS.map((count) => (
                    <TableCell key={count} align="right">
                      {translate(`iam.userJobs.counts.${count}`)}
                    </TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {jobs.data.rows.map((job) => (
                  <TableRow key={`${job.kind}-${job.id}`} hover onClick={() => open(job)} sx={{ cursor: 'pointer' }}>
                    <TableCell>
                      {/* a real link: it can be copied or opened in a new tab */}
                      <Link component={RouterLink} to={jobHref(job.kind, job.id, context)} onClick={(event) => event.stopPropagation()}>
                        {formatDateTime(job.createdAt)}
                      </Link>
                    </TableCell>
                    <TableCell>{kindLabel(job)}</TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>
                      {job.options?.fileName ?? translate(`iam.userJobs.formats.${job.options?.format ?? 'csv'}`)}
                    </TableCell>
                    <TableCell>
                      <JobStatusChip job={job} />
                    </TableCell>
                    {NUMBERS.map((count) => (
                      <TableCell key={count} align="right">
                        {job.kind === 'export' && count !== 'rowsRead' ? '' : (job[count] ?? 0).toLocaleString(uiLocale())}
                      </TableCell>
                    ))}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </Card>
    </Box>
  );
}
