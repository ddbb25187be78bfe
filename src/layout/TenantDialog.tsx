import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import {
  Box,
  Button,
  Chip,
  Dialog,
  DialogContent,
  DialogTitle,
  InputAdornment,
  LinearProgress,
  ListItemButton,
  ListItemText,
  ListSubheader,
  TextField,
  Typography,
} from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import HistoryIcon from '@mui/icons-material/History';
import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import SettingsIcon from '@mui/icons-material/Settings';
import { LinkBase, useDataProvider, useGetList, useNotify, useTranslate, type RaRecord } from 'react-admin';
import { domainSettingsHref, domainSettingsState } from '../resources/domains/settingsLink';
import type { IamDataProvider } from '../dataProvider';
import { useAnnounceSwitch } from '../session/announceSwitch';
import { companyLabel } from '../session/place';
import { readRecentTenants, type RecentTenant } from '../session/recentTenants';
import { getSession, type Company, type Domain } from '../session/session';
import { currentTenant, switchToCompany } from '../session/switching';
import { useSession } from '../session/useSession';
import { useDebounced } from './useDebounced';

/** Companies listed at once; the search finds the others (the list is server-paged). */
export const COMPANIES_SHOWN = 10;
/** Domains of one company listed at once. */
export const DOMAINS_SHOWN = 20;
export const TENANT_SEARCH_DEBOUNCE_MS = 250;

type Option =
  | { kind: 'recent'; tenant: RecentTenant }
  | { kind: 'company'; company: Company & RaRecord }
  | { kind: 'domain'; domain: Domain & RaRecord };

const optionKey = (option: Option) =>
  option.kind === 'recent'
    ? `recent-${option.tenant.companyId}/${option.tenant.domainId ?? ''}`
    : option.kind === 'company'
      ? `company-${option.company.id}`
      : `domain-${option.domain.id}`;

/**
 * docs/CONSOLE.md, "Layout": the app bar switcher's dialog. First the companies the administrator
 * may reach (their own company's subtree, searched by name and display name on the server) and the
 * recent choices; a company chosen, its domains, the primary one first and selected. An ARIA
 * combobox like the search dialog: the field keeps the focus, Up and Down move, Enter chooses,
 * Escape closes (and the focus goes back to the button). Loaded by TenantSwitcher on first use.
 */
export default function TenantDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const announceSwitch = useAnnounceSwitch();
  const dataProvider = useDataProvider<IamDataProvider>();
  const session = useSession();
  const { company: current, domain: currentDomain } = session;
  const reach = session.rootCompany ?? current;
  const [chosen, setChosen] = useState<Company>();
  const [input, setInput] = useState('');
  const [switching, setSwitching] = useState(false);
  const [active, setActive] = useState(-1);
  const field = useRef<HTMLInputElement>(null);
  const id = useId();
  const text = input.trim();
  const debounced = useDebounced(text, TENANT_SEARCH_DEBOUNCE_MS);
  // An emptied field (or a new step) shows the whole list at once; typed words wait for the debounce.
  const searched = text === '' ? '' : debounced;
  const settled = text === searched;

  const companies = useGetList<Company & RaRecord>(
    'subtreeCompanies',
    {
      pagination: { page: 1, perPage: COMPANIES_SHOWN },
      sort: { field: 'displayName', order: 'ASC' },
      filter: searched ? { q: searched } : {},
      meta: { pathContext: { companyId: reach?.id ?? '' } },
    },
    { enabled: !chosen && Boolean(reach) && settled, retry: false },
  );
  const domains = useGetList<Domain & RaRecord>(
    'domains',
    {
      pagination: { page: 1, perPage: DOMAINS_SHOWN },
      sort: { field: 'name', order: 'ASC' },
      filter: searched ? { q: searched } : {},
      meta: { pathContext: { companyId: chosen?.id ?? '' } },
    },
    { enabled: Boolean(chosen) && settled, retry: false },
  );
  const query = chosen ? domains : companies;
  const loading = !settled || query.isPending;
  const error = settled ? query.error : undefined;

  // The place the console is in is not a recent choice; the others are, with nothing typed.
  const recent = chosen || text !== '' ? [] : readRecentTenants(getSession()).filter(
    (tenant) => tenant.companyId !== current?.id || (tenant.domainId ?? '') !== (currentDomain?.id ?? ''),
  );
  // The primary domain first; the provider's order (by name) otherwise.
  const domainRows = [...(domains.data ?? [])].sort((a, b) => Number(Boolean(b.primary)) - Number(Boolean(a.primary)));
  const listed: Option[] = loading || error
    ? []
    : chosen
      ? domainRows.map((domain) => ({ kind: 'domain', domain }))
      : (companies.data ?? []).map((company) => ({ kind: 'company', company }));
  const options: Option[] = [...recent.map((tenant): Option => ({ kind: 'recent', tenant })), ...listed];

  // A new list starts with nothing selected, but a company's domains with the primary one.
  const optionsKey = `${chosen?.id ?? ''}:${searched}:${options.map(optionKey).join(',')}`;
  useEffect(() => setActive(chosen && options.length > 0 ? 0 : -1), [optionsKey]);
  const optionId = (index: number) => `${id}-option-${index}`;
  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView?.({ block: 'nearest' });
  });

  const switchTo = async (companyId: string, domainId?: string) => {
    const from = currentTenant();
    if (from?.company.id === companyId && domainId !== undefined && from.domain?.id === domainId) return onClose();
    setSwitching(true);
    try {
      const to = await switchToCompany(dataProvider, companyId, domainId);
      onClose();
      announceSwitch(from, to);
    } catch (failure) {
      setSwitching(false);
      notify((failure as Error).message || 'ra.notification.http_error', { type: 'error' });
    }
  };

  const step = (company: Company | undefined) => {
    setChosen(company);
    setInput('');
    field.current?.focus();
  };

  const choose = (option: Option) => {
    if (switching) return;
    if (option.kind === 'recent') void switchTo(option.tenant.companyId, option.tenant.domainId);
    else if (option.kind === 'company') step(option.company);
    else if (chosen) void switchTo(chosen.id, String(option.domain.id));
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const count = options.length;
    if (event.key === 'ArrowDown' && count > 0) {
      event.preventDefault();
      setActive((index) => (index + 1) % count);
    } else if (event.key === 'ArrowUp' && count > 0) {
      event.preventDefault();
      setActive((index) => (index <= 0 ? count - 1 : index - 1));
    } else if (event.key === 'Enter' && active >= 0 && active < count) {
      event.preventDefault();
      choose(options[active]);
    }
  };

  const chips = (marks: [boolean, string][]) =>
    marks
      .filter(([shown]) => shown)
      .map(([, label]) => <Chip key={label} size="small" variant="outlined" label={label} sx={{ ml: 1, flexShrink: 0 }} />);

  const renderOption = (option: Option, index: number) => {
    const selected = index === active;
    let primary: string;
    let secondary: string | undefined;
    let marks: ReactNode[] = [];
    if (option.kind === 'recent') {
      const { tenant } = option;
      primary = tenant.domainName
        ? translate('iam.tenant.place', { company: tenant.companyName, domain: tenant.domainName })
        : translate('iam.tenant.placeNoDomain', { company: tenant.companyName });
    } else if (option.kind === 'company') {
      primary = companyLabel(option.company);
      secondary = option.company.name;
      marks = chips([[option.company.id === current?.id, translate('iam.tenant.current')]]);
    } else {
      primary = option.domain.name || String(option.domain.id);
      secondary = option.domain.description;
      marks = chips([
        [Boolean(option.domain.primary), translate('iam.tenant.primary')],
        [chosen?.id === current?.id && option.domain.id === currentDomain?.id, translate('iam.tenant.current')],
      ]);
    }
    return (
      <ListItemButton
        key={optionKey(option)}
        id={optionId(index)}
        role="option"
        aria-selected={selected}
        selected={selected}
        tabIndex={-1}
        dense
        // The field keeps the focus (and so the keyboard) when an option is clicked.
        onMouseDown={(event) => event.preventDefault()}
        onClick={() => choose(option)}
      >
        {option.kind === 'recent' && <HistoryIcon fontSize="small" sx={{ mr: 1.5, color: 'text.secondary' }} aria-hidden />}
        <ListItemText primary={primary} secondary={secondary} sx={{ overflowWrap: 'anywhere' }} />
        {marks}
      </ListItemButton>
    );
  };

  const listLabel = chosen ? translate('iam.tenant.domainsOf', { company: companyLabel(chosen) }) : translate('iam.tenant.companies');
  const groups: { key: string; heading: string; items: Option[] }[] = [];
  if (recent.length > 0) groups.push({ key: 'recent', heading: translate('iam.tenant.recent'), items: options.slice(0, recent.length) });
  if (listed.length > 0) groups.push({ key: 'listed', heading: listLabel, items: listed });
  let index = 0;
  const listboxId = `${id}-listbox`;
  const total = query.total ?? 0;

  let status: ReactNode = null;
  if (error) {
    status = (
      <Typography color="error" role="alert" sx={{ p: 2 }}>
        {translate('iam.tenant.error')}
      </Typography>
    );
  } else if (!loading && listed.length === 0) {
    status = chosen && searched === '' ? (
      <Box sx={{ p: 2 }}>
        <Typography role="status" gutterBottom>
          {translate('iam.tenant.noDomainYet', { company: companyLabel(chosen) })}
        </Typography>
        <Button variant="contained" disabled={switching} onClick={() => void switchTo(chosen.id)}>
          {translate('iam.tenant.switchWithoutDomain', { company: companyLabel(chosen) })}
        </Button>
      </Box>
    ) : (
      <Typography color="text.secondary" role="status" sx={{ p: 2 }}>
        {chosen
          ? translate('iam.tenant.noDomains', { company: companyLabel(chosen), query: searched })
          : translate('iam.tenant.noCompanies', { query: searched })}
      </Typography>
    );
  } else if (!loading && total > listed.length) {
    status = (
      <Typography variant="body2" color="text.secondary" role="status" sx={{ px: 2, py: 1 }}>
        {translate('iam.tenant.more', { shown: listed.length, total })}
      </Typography>
    );
  }

  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby={`${id}-title`}
      scroll="paper"
      // Held near the top, as the search dialog: centred, it would jump as the lists change.
      sx={{ '& .MuiDialog-container': { alignItems: 'flex-start' }, '& .MuiDialog-paper': { mt: '10vh' } }}
    >
      <DialogTitle id={`${id}-title`}>{translate('iam.tenant.title')}</DialogTitle>
      <DialogContent>
        {!chosen && current && currentDomain && (
          // where the console works now: its domain's own screen, one click away (docs/CONSOLE.md, "Layout")
          <Button
            size="small"
            component={LinkBase}
            to={domainSettingsHref(current, currentDomain)}
            state={domainSettingsState(current, currentDomain)}
            onClick={onClose}
            startIcon={<SettingsIcon />}
            sx={{ mb: 1, textTransform: 'none', overflowWrap: 'anywhere' }}
          >
            {translate('iam.tenant.domainSettings', { domain: currentDomain.name || currentDomain.id })}
          </Button>
        )}
        {chosen && (
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 1, flexWrap: 'wrap' }}>
            <Button size="small" startIcon={<ArrowBackIcon />} onClick={() => step(undefined)}>
              {translate('iam.tenant.back')}
            </Button>
            <Typography component="h3" variant="subtitle1" sx={{ fontWeight: 700, overflowWrap: 'anywhere' }}>
              {listLabel}
            </Typography>
          </Box>
        )}
        <TextField
          autoFocus
          fullWidth
          inputRef={field}
          value={input}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder={chosen ? translate('iam.tenant.searchDomains', { company: companyLabel(chosen) }) : translate('iam.tenant.searchCompanies')}
          sx={{ mt: 0.5 }}
          slotProps={{
            htmlInput: {
              role: 'combobox',
              'aria-label': chosen ? translate('iam.tenant.searchDomains', { company: companyLabel(chosen) }) : translate('iam.tenant.searchCompanies'),
              'aria-autocomplete': 'list',
              'aria-expanded': options.length > 0,
              'aria-controls': options.length > 0 ? listboxId : undefined,
              'aria-activedescendant': active >= 0 && active < options.length ? optionId(active) : undefined,
              autoComplete: 'off',
              spellCheck: false,
            },
            input: {
              startAdornment: (
                <InputAdornment position="start">
                  <SearchIcon />
                </InputAdornment>
              ),
            },
          }}
        />
        <Box sx={{ height: 4, my: 1 }}>{(loading || switching) && <LinearProgress aria-label={translate('iam.tenant.loading')} />}</Box>
        {options.length > 0 && (
          <Box role="listbox" id={listboxId} aria-label={listLabel}>
            {groups.map((group) => (
              <Box role="group" key={group.key} aria-labelledby={`${id}-${group.key}`}>
                <ListSubheader component="div" disableSticky id={`${id}-${group.key}`}>
                  {group.heading}
                </ListSubheader>
                {group.items.map((option) => renderOption(option, index++))}
              </Box>
            ))}
          </Box>
        )}
        {status}
        <Typography variant="caption" color="text.secondary" component="p" sx={{ px: 2, pt: 2 }}>
          {translate('iam.tenant.keys')}
        </Typography>
      </DialogContent>
    </Dialog>
  );
}
