import { Alert } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { TopToolbar, useTranslate } from 'react-admin';
import { config } from '../../config';
import { httpClient } from '../../http/httpClient';
import { useSession } from '../../session/useSession';
import { useDeclaration } from '../generic/DeclarationContext';
import { DeclaredList } from '../generic/DeclaredList';
import { useListMeta } from '../generic/useListMeta';

/** Whether the provider has a mail server (SMTP_URL): GET …/mailSettings, read once per domain. */
export function useMailConfigured(companyId: string | undefined, domainId: string | undefined) {
  return useQuery({
    queryKey: ['mailSettings', companyId, domainId],
    queryFn: async () =>
      ((await httpClient(`${config.apiBase}/companys/${encodeURIComponent(companyId!)}/domainNames/${encodeURIComponent(domainId!)}/mailSettings`)).json as { configured: boolean }).configured,
    enabled: Boolean(companyId && domainId),
    staleTime: 5 * 60_000,
  });
}

/** /outbox: the domain's messages, with a word when mail is not configured (they stay here). */
export default function OutboxList() {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const meta = useListMeta();
  const { company, domain } = useSession();
  const configured = useMailConfigured(company?.id, domain?.id);
  return (
    <>
      {configured.data === false && (
        <Alert severity="info" sx={{ mt: 2, mx: 1 }}>
          {translate('iam.outbox.notConfigured')}
        </Alert>
      )}
      <DeclaredList title={translate(declaration.labelKey)} meta={meta} storeKey={`${declaration.name}.list`} actions={<TopToolbar />} />
    </>
  );
}
