import { Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useTranslate, type TranslateFunction } from 'react-admin';
import { readableName } from '../../i18n/readableName';

/** What one field's change holds: before and after (either may be absent), or only that a secret changed. */
interface FieldChange {
  before?: unknown;
  after?: unknown;
  hidden?: boolean;
}

/** The one-key changes of a group's members and permissions and an API's scopes: their value is an object. */
const PARTS = ['member', 'permission', 'scope'] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A member, a granted permission or a permission scope as a sentence-free line of text. */
function describePart(part: string, value: Record<string, unknown>, translate: TranslateFunction): string | undefined {
  switch (part) {
    case 'member':
      return `${translate(`iam.members.types.${String(value.type)}`, { _: String(value.type ?? '') })} ${String(value.id ?? '')}`.trim();
    case 'permission':
      return translate('iam.audit.permissionOf', { permission: String(value.permission ?? value.scopeId ?? ''), api: String(value.apiId ?? '') });
    case 'scope':
      return value.description ? `${String(value.permission ?? value.id)}: ${String(value.description)}` : String(value.permission ?? value.id ?? '');
    default:
      return undefined;
  }
}

/** A recorded value as text: lists joined, booleans as Yes / No, anything else structured as indented JSON. */
export function describeValue(field: string, value: unknown, translate: TranslateFunction): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean') return translate(value ? 'ra.boolean.true' : 'ra.boolean.false');
  if (typeof value === 'string') return value === '' ? translate('iam.audit.emptyText') : value;
  if (Array.isArray(value)) {
    if (value.length === 0) return translate('iam.audit.emptyList');
    if (value.every((item) => typeof item !== 'object' || item === null)) return value.map(String).join(', ');
  }
  if (isObject(value)) {
    const part = (PARTS as readonly string[]).includes(field) ? describePart(field, value, translate) : undefined;
    if (part !== undefined) return part;
  }
  return typeof value === 'object' ? JSON.stringify(value, null, 2) : String(value);
}

/** A field's label: the resource's own (resources.<type>.fields.<field>), a part's, else the readable name. */
export function fieldLabel(resourceType: string, field: string, translate: TranslateFunction): string {
  if ((PARTS as readonly string[]).includes(field)) return translate(`iam.audit.parts.${field}`);
  return translate(`resources.${resourceType}.fields.${field}`, { _: readableName(field) });
}

const valueCell = {
  // long values (a description, a list of URIs, JSON) wrap inside their column instead of widening the table
  whiteSpace: 'pre-wrap',
  overflowWrap: 'anywhere',
  verticalAlign: 'top',
} as const;

function Value({ field, value, translate }: { field: string; value: unknown; translate: TranslateFunction }) {
  const text = describeValue(field, value, translate);
  if (text === '') {
    return (
      <Typography component="span" variant="body2" color="text.secondary" aria-label={translate('iam.audit.none')}>
        —
      </Typography>
    );
  }
  // structured values (JSON) keep their indentation in a fixed-width font
  const structured = typeof value === 'object' && /^[[{]/.test(text);
  return structured ? (
    <Typography component="code" variant="body2" sx={{ fontFamily: 'monospace', whiteSpace: 'pre-wrap' }}>
      {text}
    </Typography>
  ) : (
    <>{text}</>
  );
}

/**
 * One audit record's changes as a table, field | before | after (docs/CONSOLE.md, "History and
 * audit log"): a secret reads "changed (hidden)", a member, permission or scope reads as text.
 * Used by the History tabs and by the Audit log's rows.
 */
export function AuditDiff({ changes, resourceType }: { changes: Record<string, unknown> | null | undefined; resourceType: string }) {
  const translate = useTranslate();
  const fields = Object.entries(changes ?? {});
  if (fields.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary">
        {translate('iam.audit.noFields')}
      </Typography>
    );
  }
  return (
    <Table size="small" aria-label={translate('iam.audit.changes')} sx={{ tableLayout: 'fixed', width: '100%' }}>
      <TableHead>
        <TableRow>
          <TableCell sx={{ width: '24%' }}>{translate('iam.audit.field')}</TableCell>
          <TableCell sx={{ width: '38%' }}>{translate('iam.audit.before')}</TableCell>
          <TableCell sx={{ width: '38%' }}>{translate('iam.audit.after')}</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {fields.map(([field, raw]) => {
          const change: FieldChange = isObject(raw) ? raw : { after: raw };
          return (
            <TableRow key={field}>
              <TableCell component="th" scope="row" sx={valueCell}>
                {fieldLabel(resourceType, field, translate)}
              </TableCell>
              {change.hidden ? (
                <TableCell colSpan={2} sx={{ ...valueCell, fontStyle: 'italic' }}>
                  {translate('iam.audit.hidden')}
                </TableCell>
              ) : (
                <>
                  <TableCell sx={valueCell}>
                    <Value field={field} value={change.before} translate={translate} />
                  </TableCell>
                  <TableCell sx={valueCell}>
                    <Value field={field} value={change.after} translate={translate} />
                  </TableCell>
                </>
              )}
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
