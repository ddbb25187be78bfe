import { Box, Typography } from '@mui/material';
import { useRecordContext, useTranslate } from 'react-admin';
import { maskedActor } from './AuditCells';
import { AuditDiff } from './AuditDiff';
import type { AuditEvent } from './vocabulary';

/** An Audit log record's detail: the fields it changed, and where the change came from. */
export default function AuditDiffPanel() {
  const event = useRecordContext<AuditEvent>();
  const translate = useTranslate();
  if (!event) return null;
  return (
    <Box sx={{ py: 1, maxWidth: 900 }}>
      <AuditDiff changes={event.changes} resourceType={event.resourceType} />
      {maskedActor(event) && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {translate('iam.audit.originMasked', { company: event.actorCompanyId, domain: event.actorDomainId ?? '?' })}
        </Typography>
      )}
      {(event.actorIp || event.actorClientId) && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {translate('iam.audit.origin', {
            application: event.actorClientId ?? '?',
            company: event.actorCompanyId ?? '?',
            domain: event.actorDomainId ?? '?',
            ip: event.actorIp ?? '?',
          })}
        </Typography>
      )}
      {event.actorRoles && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {translate('iam.audit.actingAs', { roles: event.actorRoles })}
        </Typography>
      )}
    </Box>
  );
}
