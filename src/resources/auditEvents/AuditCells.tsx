import { Box, Typography } from '@mui/material';
import { useTranslate, type RaRecord } from 'react-admin';
import { useSession } from '../../session/useSession';
import { FieldValue } from '../generic/FieldValue';
import type { FieldDeclaration } from '../types';
import type { AuditEvent } from './vocabulary';

/** The browser's locale, date and time to the second. */
export function formatTime(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? iso : time.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

export function AuditTime({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatTime(iso)}</time>;
}

/**
 * Who made a change (`field`: the audit declaration's actorUserId, a reference to users): the
 * user's display name, a link to their screen, when they are a user of the current domain;
 * otherwise their id, with the company and application they acted through.
 */
export function AuditActor({ event, field }: { event: AuditEvent; field: FieldDeclaration }) {
  const translate = useTranslate();
  const { company, domain } = useSession();
  const here = event.actorCompanyId === company?.id && event.actorDomainId === domain?.id;
  if (!event.actorUserId) return <>{translate('iam.audit.unknownActor')}</>;
  return (
    <Box component="span" sx={{ overflowWrap: 'anywhere' }}>
      {/* outside the current domain there is no screen of theirs to open: the id alone */}
      <FieldValue field={field} record={event as unknown as RaRecord} plain={!here} />
      {!here && (
        <Typography component="span" variant="caption" color="text.secondary" sx={{ display: 'block' }}>
          {translate('iam.audit.actorVia', { company: event.actorCompanyId ?? '?', application: event.actorClientId ?? '?' })}
        </Typography>
      )}
    </Box>
  );
}

/** The Audit log's actor column (a declared cell: it is given the row and its field). */
export function ActorCell({ record, field }: { record: RaRecord; field: FieldDeclaration }) {
  // without its own cell the field shows as a reference, or the cell would call itself
  return <AuditActor event={record as unknown as AuditEvent} field={{ ...field, cell: undefined }} />;
}
