import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import {
  Box,
  Button,
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
import { useCanAccess, useGetList, useLocation, useNavigate, useTranslate, type RaRecord } from 'react-admin';
import { apis } from '../resources/apis';
import { apiState } from '../resources/apis/formState';
import { applications } from '../resources/applications';
import { applicationState } from '../resources/applications/formState';
import { NoDomainGuidance } from '../resources/domains/NoDomainGuidance';
import { statusCondition } from '../resources/generic/listStatus';
import { recordHref } from '../resources/generic/recordLink';
import { currentPathContext } from '../session/session';
import { groups } from '../resources/groups';
import { groupFormState } from '../resources/groups/formState';
import type { ResourceDeclaration } from '../resources/types';
import { users } from '../resources/users';
import { userFormState } from '../resources/users/formState';
import { useSession } from '../session/useSession';
import { useRecentSearches } from './recentSearches';
import { useDebounced } from './useDebounced';

/** Records shown per type: enough to pick from, the type's list has the rest. */
export const RESULTS_PER_TYPE = 5;
/** Typing a word sends one request per type, not one per letter. */
export const SEARCH_DEBOUNCE_MS = 250;

type Translate = ReturnType<typeof useTranslate>;

interface SearchType {
  declaration: ResourceDeclaration;
  /** The navigation state its list gives the record's screen when a row is clicked (the lists' own helpers). */
  state: (record: RaRecord, translate: Translate) => Record<string, unknown>;
}

const USERS: SearchType = { declaration: users, state: (record, translate) => userFormState('view', translate, record) };
const GROUPS: SearchType = { declaration: groups, state: (record) => groupFormState('view', record) };
const APPLICATIONS: SearchType = {
  declaration: applications,
  state: (record, translate) => applicationState('view', translate('iam.applications.viewTitle'), record),
};
const APIS: SearchType = { declaration: apis, state: (record) => apiState('view', record) };

/**
 * One type's active records matching `query` in the session's domain (nothing is sent while `query`
 * is empty, nor for a type the person may not read here: docs/CONSOLE.md, "Roles").
 */
function useTypeResults(type: SearchType, query: string) {
  const { company, domain } = useSession();
  const { declaration } = type;
  const readable = useCanAccess({ resource: declaration.name, action: 'list' }).canAccess === true;
  const result = useGetList(
    declaration.name,
    {
      pagination: { page: 1, perPage: RESULTS_PER_TYPE },
      sort: declaration.defaultSort,
      filter: { q: query },
      meta: {
        condition: statusCondition(declaration, 'active'),
        // Part of the cache key: another company or domain is another search.
        pathContext: { companyId: company?.id ?? '', domainId: domain?.id ?? '' },
      },
    },
    // The next keystroke is the retry.
    { enabled: readable && query !== '' && !!company?.id && !!domain?.id, retry: false },
  );
  return { type, readable, ...result };
}

type Option = { kind: 'record'; type: SearchType; record: RaRecord } | { kind: 'recent'; query: string };

/**
 * docs/CONSOLE.md, "Layout": searches the users, groups, applications and APIs of the current domain
 * (those of them the person's roles let her read) as the administrator types (ARIA combobox with a grouped listbox; focus stays in the field while
 * Up/Down move the selection). With nothing typed it offers the recent searches. Loaded by
 * SearchButton on first use, so none of this is part of the first screen.
 */
interface SearchDialogProps {
  open: boolean;
  onClose: () => void;
  label: string;
  /** What was typed while the dialog loaded (SearchButton keeps it): it comes first in the field. */
  takeTypedAhead?: () => string;
}

export default function SearchDialog({ open, onClose, label, takeTypedAhead }: SearchDialogProps) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const { domain } = useSession();
  const { recent, remember, clear } = useRecentSearches();
  const [input, setInput] = useState('');
  useEffect(() => {
    const typed = takeTypedAhead?.();
    if (typed) setInput((later) => typed + later);
  }, [takeTypedAhead]);
  const text = input.trim();
  const searched = useDebounced(text, SEARCH_DEBOUNCE_MS);
  // Each query has its own cache entry, so an older query's late answer never lands under this one.
  const results = [
    useTypeResults(USERS, searched),
    useTypeResults(GROUPS, searched),
    useTypeResults(APPLICATIONS, searched),
    useTypeResults(APIS, searched),
  ].filter((result) => result.readable);
  const [active, setActive] = useState(-1);
  const id = useId();
  const listboxId = `${id}-listbox`;
  const optionId = (index: number) => `${id}-option-${index}`;

  // Results shown belong to what is typed: while the debounce runs, the previous query's are hidden.
  const current = text !== '' && text === searched;
  const loading = text !== '' && (!current || results.some((result) => result.isPending));
  const error = current ? results.find((result) => result.error)?.error : undefined;
  const found = current && !loading && !error ? results.filter((result) => (result.data?.length ?? 0) > 0) : [];
  const options: Option[] =
    text === ''
      ? recent.map((query) => ({ kind: 'recent', query }))
      : found.flatMap((result) => (result.data ?? []).map((record): Option => ({ kind: 'record', type: result.type, record })));

  // A new list of options starts with none selected.
  const optionsKey = text === '' ? `recent:${recent.join('\n')}` : `search:${current ? searched : ''}:${options.length}`;
  useEffect(() => setActive(-1), [optionsKey]);
  useEffect(() => {
    if (active >= 0) document.getElementById(optionId(active))?.scrollIntoView?.({ block: 'nearest' });
  });

  // A screen opened from inside the dialog (a result, the first-domain guidance) closes it.
  const location = useLocation();
  const openedAt = useRef(location.key);
  useEffect(() => {
    if (location.key !== openedAt.current) onClose();
  }, [location.key, onClose]);

  const choose = (option: Option) => {
    if (option.kind === 'recent') {
      setInput(option.query);
      return;
    }
    const { declaration } = option.type;
    remember(searched);
    onClose();
    // the record's shareable address, as its list row opens it (docs/CONSOLE.md, "Routes")
    const to = recordHref(declaration.name, option.record.id, currentPathContext()) ?? declaration.routes.view ?? declaration.routes.form;
    navigate(to, { state: option.type.state(option.record, translate) });
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

  const renderOption = (option: Option, index: number) => {
    const selected = index === active;
    const [primary, secondary] = option.kind === 'recent' ? [option.query, undefined] : recordTexts(option.type.declaration, option.record);
    return (
      <ListItemButton
        key={option.kind === 'recent' ? `recent-${option.query}` : `${option.type.declaration.name}-${String(option.record.id)}`}
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
        <ListItemText primary={primary} secondary={secondary} />
      </ListItemButton>
    );
  };

  let index = 0;
  const listbox =
    options.length === 0 ? null : text === '' ? (
      <Box role="listbox" id={listboxId} aria-labelledby={`${id}-recent`}>
        {options.map((option) => renderOption(option, index++))}
      </Box>
    ) : (
      <Box role="listbox" id={listboxId} aria-label={translate('iam.search.results')}>
        {found.map((result) => (
          <Box role="group" key={result.type.declaration.name} aria-labelledby={`${id}-${result.type.declaration.name}`}>
            <ListSubheader component="div" disableSticky id={`${id}-${result.type.declaration.name}`}>
              {translate(`iam.search.types.${result.type.declaration.name}`)}
            </ListSubheader>
            {(result.data ?? []).map((record) => renderOption({ kind: 'record', type: result.type, record }, index++))}
          </Box>
        ))}
      </Box>
    );

  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby={`${id}-title`}
      scroll="paper"
      // Held near the top: centred, it would jump up and down as results come and go.
      sx={{ '& .MuiDialog-container': { alignItems: 'flex-start' }, '& .MuiDialog-paper': { mt: '10vh' } }}
    >
      <DialogTitle id={`${id}-title`}>{label}</DialogTitle>
      <DialogContent>
        {!domain ? (
          <NoDomainGuidance level="h3" explanationKey="iam.search.noDomain" />
        ) : (
          <>
            <TextField
              autoFocus
              fullWidth
              value={input}
              onChange={(event) => setInput(event.target.value)}
              onKeyDown={onKeyDown}
              placeholder={translate('iam.search.placeholder')}
              sx={{ mt: 0.5 }}
              slotProps={{
                htmlInput: {
                  role: 'combobox',
                  'aria-label': label,
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
            <Box sx={{ height: 4, my: 1 }}>{loading && <LinearProgress aria-label={translate('iam.search.searching')} />}</Box>
            {text === '' ? (
              recent.length > 0 ? (
                <>
                  <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between' }}>
                    <ListSubheader component="div" disableSticky id={`${id}-recent`} sx={{ px: 2 }}>
                      {translate('iam.search.recent')}
                    </ListSubheader>
                    <Button size="small" onClick={clear}>
                      {translate('iam.search.clearRecent')}
                    </Button>
                  </Box>
                  {listbox}
                </>
              ) : (
                <Typography color="text.secondary" sx={{ p: 2 }}>
                  {translate('iam.search.hint', { domain: domain.name || domain.id })}
                </Typography>
              )
            ) : error ? (
              <Typography color="error" role="alert" sx={{ p: 2 }}>
                {translate('iam.search.error')}
              </Typography>
            ) : current && !loading && options.length === 0 ? (
              <Typography color="text.secondary" role="status" sx={{ p: 2 }}>
                {translate('iam.search.noResults', { query: searched })}
              </Typography>
            ) : (
              listbox
            )}
            <Typography variant="caption" color="text.secondary" component="p" sx={{ px: 2, pt: 2 }}>
              {translate('iam.search.keys')}
            </Typography>
          </>
        )}
      </DialogContent>
    </Dialog>
  );
}

/** What a result shows: the type's first two list columns, as its list does. */
function recordTexts(declaration: ResourceDeclaration, record: RaRecord): [string, string | undefined] {
  const [first, second] = declaration.listColumns;
  const primary = record[first] ?? record.id;
  const secondaryValue = second === undefined ? undefined : record[second];
  return [String(primary), secondaryValue === undefined || secondaryValue === null || secondaryValue === '' ? undefined : String(secondaryValue)];
}
