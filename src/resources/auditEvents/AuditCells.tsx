import { Box, Typography } from '@mui/material';
import { useTranslate, type RaRecord } from 'react-admin';
import { getSession } from '../../session/session';
import { useSession } from '../../session/useSession';
import { FieldValue } from '../generic/FieldValue';
import type { FieldDeclaration } from '../types';
import { lookupResource, RECORD_NAMES, RECORD_SCREENS } from './recordScreens';
import { uiLocale } from '../../i18n/language';
import type { AuditEvent } from './vocabulary';

/** The console's language (docs/CONSOLE.md, "Languages"), date and time to the second. */
export function formatTime(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? iso : time.toLocaleString(uiLocale(), { dateStyle: 'medium', timeStyle: 'medium' });
}

export function AuditTime({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatTime(iso)}</time>;
}

/** The actor as a reference to the users of the current domain, shown by name and opened from there. */
const ACTOR: FieldDeclaration = {
  source: 'actorUserId',
  kind: 'text',
  reference: {
    resource: () => (getSession().domain ? 'users' : undefined),
    optionText: 'displayName',
    link: (user, translate) => RECORD_SCREENS.users(user as RaRecord, translate),
  },
};

/** The changed record as a reference to whichever type the row names. */
const RESOURCE: FieldDeclaration = {
  source: 'resourceId',
  kind: 'text',
  reference: {
    resource: (row) => lookupResource(String(row.resourceType)),
    link: (record, translate, row) => RECORD_SCREENS[String(row.resourceType)]?.(record as RaRecord, translate),
  },
};

/**
 * An operator of a company above the reader's: the provider names their company and domain only,
 * never their user, application or address (docs/DECISIONS.md, "Operators above a company in its
 * audit log"). Every record the API writes has a user, so a company without one is this.
 */
export const maskedActor = (event: AuditEvent) => !event.actorUserId && !!event.actorCompanyId;

/**
 * Who made a change: the user's display name, a link to their screen, when they are a user of the
 * current domain; otherwise their id, with the company and application they acted through; "an
 * operator of <company>" for an operator of a company above the reader's.
 */
export function AuditActor({ event }: { event: AuditEvent }) {
  const translate = useTranslate();
  const { company, domain } = useSession();
  const here = event.actorCompanyId === company?.id && event.actorDomainId === domain?.id;
  if (maskedActor(event)) return <>{translate('iam.audit.operatorOf', { company: event.actorCompanyId })}</>;
  if (!event.actorUserId) return <>{translate('iam.audit.unknownActor')}</>;
  return (
    <Box component="span" sx={{ overflowWrap: 'anywhere' }}>
      {/* outside the current domain there is no screen of theirs to open: the id alone */}
      <FieldValue field={ACTOR} record={event as unknown as RaRecord} plain={!here} />
      {!here && (
        <Typography component="span" variant="caption" color="text.secondary" sx={{ display: 'block' }}>
          {translate('iam.audit.actorVia', { company: event.actorCompanyId ?? '?', application: event.actorClientId ?? '?' })}
        </Typography>
      )}
    </Box>
  );
}

/** The Audit log's Actor column (a declared cell). */
export function ActorCell({ record }: { record: RaRecord }) {
  return <AuditActor event={record as unknown as AuditEvent} />;
}

/** Each type's reference, named by its display name (read with the page's others of that type in one getMany). */
const RESOURCES: Record<string, FieldDeclaration> = Object.fromEntries(
  Object.entries(RECORD_NAMES).map(([type, optionText]) => [type, { ...RESOURCE, reference: { ...RESOURCE.reference!, optionText } }]),
);

/**
 * The Audit log's Resource column (a declared cell): the record's display name, a link to its
 * address, while the console can read it; else its id (another domain's, or purged since).
 */
export function ResourceCell({ record }: { record: RaRecord }) {
  return (
    <Box component="span" sx={{ overflowWrap: 'anywhere' }}>
      <FieldValue field={RESOURCES[String(record.resourceType)] ?? RESOURCE} record={record} />
    </Box>
  );
}
