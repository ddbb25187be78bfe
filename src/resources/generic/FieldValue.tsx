import { Suspense, type MouseEvent } from 'react';
import { Box, IconButton, Link, Tooltip } from '@mui/material';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { darken, lighten } from '@mui/material/styles';
import { useCanAccess, useGetManyAggregate, useNavigate, useNotify, useResourceContext, useTranslate, type RaRecord } from 'react-admin';
import { useSession } from '../../session/useSession';
import type { ChoiceColor, FieldDeclaration } from '../types';
import { formatDateTime } from './dateTime';
import { RECORD_SCREENS } from '../auditEvents/recordScreens';

/** What a select's stored value reads as: its translated label when the field declares a prefix. */
export function choiceLabel(field: FieldDeclaration, value: string, translate: (key: string, options?: object) => string): string {
  return field.choiceLabelPrefix ? translate(`${field.choiceLabelPrefix}.${value}`, { _: value }) : value;
}

/**
 * A value with a colour (docs/CONSOLE.md, "Resources"): tinted like an MUI standard alert, dark text
 * on a pale tint in the light theme and pale text on a dark tint in the dark one, which keeps the
 * text above 4.5:1 in both. The words carry the meaning; the colour only repeats it.
 */
export function ColorChip({ color, children }: { color?: ChoiceColor; children: string }) {
  return (
    <Box
      component="span"
      sx={(theme) => {
        const light = theme.palette.mode === 'light';
        const base = color ? theme.palette[color].light : theme.palette.grey[500];
        return {
          display: 'inline-block',
          px: 1,
          py: 0.25,
          borderRadius: 4,
          fontSize: '0.8125rem',
          lineHeight: 1.5,
          whiteSpace: 'nowrap',
          color: light ? darken(base, 0.6) : lighten(base, 0.6),
          bgcolor: light ? lighten(base, 0.85) : darken(base, 0.75),
        };
      }}
    >
      {children}
    </Box>
  );
}

/**
 * The referenced record of a field, read with the other rows' references in one getMany, and only
 * when the person may read that type here (docs/CONSOLE.md, "Roles": Support's sign-in logs show an
 * application's id, never asking for applications); otherwise the field shows its own value.
 */
function useReferenced(field: FieldDeclaration, record: RaRecord): RaRecord | undefined {
  const { company, domain } = useSession();
  const reference = field.reference!;
  const id = record[reference.idSource ?? field.source] as string | null | undefined;
  const resource = typeof reference.resource === 'function' ? reference.resource(record) : reference.resource;
  // not asked without a resource (the name is then only a placeholder)
  const readable = useCanAccess({ resource: resource || 'none', action: 'show', enabled: Boolean(id && resource) }).canAccess === true;
  const { data } = useGetManyAggregate(
    resource ?? '',
    { ids: id ? [id] : [], meta: { pathContext: { companyId: company?.id ?? '', domainId: domain?.id ?? '' } } },
    { enabled: Boolean(id && resource) && readable },
  );
  return id ? data?.find((found) => found && String(found.id) === String(id)) : undefined;
}

function ReferenceValue({ field, record, text, plain }: { field: FieldDeclaration; record: RaRecord; text: string; plain: boolean }) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const reference = field.reference!;
  const referenced = useReferenced(field, record);
  const shown = (reference.optionText && referenced ? String(referenced[reference.optionText] ?? '') : '') || text;
  // without a link of its own, a referenced record opens at its address when it has one
  const resource = typeof reference.resource === 'function' ? reference.resource(record) : reference.resource;
  const link = reference.link ?? ((found: Record<string, unknown>) => (resource ? RECORD_SCREENS[resource]?.(found as RaRecord, translate) : undefined));
  const target = plain || !referenced ? undefined : link(referenced, translate, record);
  // a link needs words: an empty value stays plain text (a button without a name fails axe)
  if (!target || !shown) return <>{shown}</>;
  const { to, state } = target;
  // a record's address (docs/CONSOLE.md, "Routes") is a real link: it can be copied or opened in a new tab
  const href = to.includes('/', 1) ? to : undefined;
  return (
    <Link
      component={href ? 'a' : 'button'}
      type={href ? undefined : 'button'}
      href={href}
      underline="hover"
      sx={{ textAlign: 'left' }}
      onClick={(event: MouseEvent) => {
        // the row may open its own record on click
        event.stopPropagation();
        if (href && (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)) return;
        event.preventDefault();
        navigate(to, { state });
      }}
    >
      {shown}
    </Link>
  );
}

/** A value to copy (an application's client id): monospace, with a button that copies it and says so. */
function CopyableValue({ text, source }: { text: string; source: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const label = translate(`resources.${useResourceContext() ?? ''}.fields.${source}`, { _: source });
  const copy = async (event: MouseEvent) => {
    // the row opens its record on click; the button only copies
    event.stopPropagation();
    try {
      await navigator.clipboard.writeText(text);
      notify('iam.list.copied', { type: 'info', messageArgs: { value: text } });
    } catch {
      notify('iam.secret.copyFailed', { type: 'warning' });
    }
  };
  return (
    <Box component="span" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, whiteSpace: 'nowrap' }}>
      <Box component="span" sx={{ fontFamily: 'monospace' }}>
        {text}
      </Box>
      <Tooltip title={translate('iam.list.copy', { field: label })}>
        <IconButton size="small" aria-label={translate('iam.list.copy', { field: label })} onClick={copy}>
          <ContentCopyIcon fontSize="inherit" />
        </IconButton>
      </Tooltip>
    </Box>
  );
}

/**
 * A declared field's value as lists show it (docs/CONSOLE.md, "Resources"): dates in the browser's
 * locale, a select's label (in a coloured chip when the field gives colours), a referenced record's
 * name (a link to it when the reference says where), long text cut with the whole of it on hover,
 * and the `fallback` field when the value is empty; a field's own `cell` component instead when it
 * declares one. `plain` leaves out links (the first column is one already).
 */
export function FieldValue({ field, record, plain = false }: { field: FieldDeclaration; record: RaRecord; plain?: boolean }) {
  const translate = useTranslate();
  const raw = record[field.source];
  const value = raw === null || raw === undefined || raw === '' ? (field.fallback ? record[field.fallback] : raw) : raw;
  if (field.kind === 'dateTime') {
    // the machine-readable instant stays on the element
    return value ? <time dateTime={String(value)}>{formatDateTime(value)}</time> : null;
  }
  const text = value === null || value === undefined ? '' : Array.isArray(value) ? value.join(', ') : String(value);
  if (field.cell && !plain) {
    const Cell = field.cell;
    return (
      <Suspense fallback={text}>
        <Cell record={record} field={field} />
      </Suspense>
    );
  }
  if (field.kind === 'select' && text) {
    const label = choiceLabel(field, text, translate);
    return field.choiceColors ? <ColorChip color={field.choiceColors[text]}>{label}</ColorChip> : <>{label}</>;
  }
  if (field.reference) return <ReferenceValue field={field} record={record} text={text} plain={plain} />;
  if (field.copy && text && !plain) return <CopyableValue text={text} source={field.source} />;
  if (field.truncate && text.length > field.truncate) {
    // cut by the style only: screen readers, copy and export keep the whole value; focusable, so
    // the tooltip shows from the keyboard too
    return (
      <Tooltip title={text} describeChild>
        <Box
          component="span"
          tabIndex={0}
          sx={{
            display: 'inline-block',
            maxWidth: `${field.truncate}ch`,
            overflow: 'hidden',
            textOverflow: 'ellipsis',
            whiteSpace: 'nowrap',
            verticalAlign: 'bottom',
          }}
        >
          {text}
        </Box>
      </Tooltip>
    );
  }
  return <>{text}</>;
}
