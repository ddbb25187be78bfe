import { Alert, Box, Button, Chip, CircularProgress, Typography } from '@mui/material';
import { useGetOne, useTranslate } from 'react-admin';
import type { Domain } from '../../session/session';

/** docs/CONSOLE.md, "APIs and permission scopes": the Domain tab: the API's domain, read-only, with a close button. */
export function DomainTab({ domainId, companyId, onClose }: { domainId: string; companyId: string; onClose: () => void }) {
  const translate = useTranslate();
  const { data, isPending, error } = useGetOne<Domain & { id: string }>(
    'domains',
    { id: domainId, meta: { pathContext: { companyId } } },
    { enabled: Boolean(domainId && companyId) },
  );

  return (
    <>
      <Typography variant="h6" component="h2" gutterBottom>
        {translate('iam.apis.tabs.domain')}
      </Typography>
      {isPending ? (
        <CircularProgress aria-label={translate('iam.list.loading')} />
      ) : error ? (
        <Alert severity="error" role="alert">
          {(error as Error).message}
        </Alert>
      ) : (
        <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', columnGap: 3, rowGap: 1, m: 0 }}>
          <Typography component="dt" color="text.secondary">
            {translate('resources.domains.fields.name')}
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>
            {data?.name}
            {data?.primary && <Chip size="small" label={translate('iam.domains.primary')} sx={{ ml: 1 }} />}
          </Typography>
          <Typography component="dt" color="text.secondary">
            {translate('resources.domains.fields.description')}
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>
            {data?.description}
          </Typography>
          <Typography component="dt" color="text.secondary">
            {translate('iam.apis.company')}
          </Typography>
          <Typography component="dd" sx={{ m: 0 }}>
            {companyId}
          </Typography>
        </Box>
      )}
      <Button onClick={onClose} sx={{ mt: 2 }}>
        {translate('iam.actions.close')}
      </Button>
    </>
  );
}
