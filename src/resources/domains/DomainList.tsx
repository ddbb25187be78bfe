import { useState } from 'react';
import { Button, Chip } from '@mui/material';
import StarIcon from '@mui/icons-material/Star';
import SwapHorizIcon from '@mui/icons-material/SwapHoriz';
import SettingsIcon from '@mui/icons-material/Settings';
import SecurityIcon from '@mui/icons-material/Security';
import MailIcon from '@mui/icons-material/Mail';
import {
  FunctionField,
  LinkBase,
  TopToolbar,
  useCanAccess,
  useDataProvider,
  useListContext,
  useNavigate,
  useCloseNotification,
  useNotify,
  useRefresh,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import type { IamDataProvider } from '../../dataProvider';
import { useAnnounceSwitch } from '../../session/announceSwitch';
import { currentTenant, setPrimaryDomain, switchToDomain } from '../../session/switching';
import { useSession } from '../../session/useSession';
import type { Company, Domain } from '../../session/session';
import { CurrentRecordCard } from '../generic/CurrentRecordCard';
import { DeclaredList } from '../generic/DeclaredList';
import { DeleteSelectedButton } from '../generic/DeleteSelectedButton';
import { DisabledReason } from '../generic/DisabledReason';
import { NewButton } from '../generic/NewButton';
import { useAllowed } from '../generic/useAllowed';
import { useListMeta } from '../generic/useListMeta';
import { NoDomainGuidance } from './NoDomainGuidance';
import { usePrimaryDomainId } from './usePrimaryDomain';
import { useDeclaration } from '../generic/DeclarationContext';
import { recordHref } from '../generic/recordLink';
import { outbox } from '../outbox';
import { domainSettingsHref, domainSettingsState } from './settingsLink';

export interface DomainFormState {
  company?: Company;
  domain?: RaRecord;
  mode: 'new' | 'view' | 'edit';
  domainCount?: number;
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/**
 * Why the selected domains cannot be deleted, as the provider would refuse them (docs/CONSOLE.md,
 * "Domains"): the domain the administrator is signed in to, or the primary domain while other
 * domains remain. The current domain is never a row, so a selected primary row always leaves one.
 */
export function domainDeleteReason(
  selected: readonly Domain[],
  signedIn: { companyId?: string; domain?: string } | undefined,
  companyId: string | undefined,
  remaining: number,
  translate: Translate,
): string | undefined {
  const own = signedIn?.companyId === companyId ? selected.find((domain) => domain.id === signedIn?.domain) : undefined;
  if (own) return translate('iam.domains.signedInDomain', { name: own.name });
  const primary = selected.find((domain) => domain.primary);
  if (primary && remaining > 0) return translate('iam.domains.primaryKept', { name: primary.name });
  return undefined;
}

/**
 * The action of Set Primary's notification: the new primary domain becomes current, one click away
 * (Set Primary itself leaves the current domain as it is; docs/DECISIONS.md, item 33).
 */
function SwitchToItButton({ domain }: { domain: Domain }) {
  const translate = useTranslate();
  const closeNotification = useCloseNotification();
  const announceSwitch = useAnnounceSwitch();
  return (
    <Button
      color="inherit"
      size="small"
      onClick={() => {
        closeNotification();
        const from = currentTenant();
        const switched = switchToDomain(domain);
        if (switched) announceSwitch(from, switched);
      }}
    >
      {translate('iam.domains.switchToIt')}
    </Button>
  );
}

function DomainActions() {
  const { routes } = useDeclaration();
  const { selectedIds, onUnselectItems, total = 0, data = [] } = useListContext<Domain & RaRecord>();
  const { company, domain: current, client } = useSession();
  const translate = useTranslate();
  const navigate = useNavigate();
  const notify = useNotify();
  const refresh = useRefresh();
  const announceSwitch = useAnnounceSwitch();
  const dataProvider = useDataProvider<IamDataProvider>();
  const [settingPrimary, setSettingPrimary] = useState(false);
  const meta = useListMeta();
  const selected = data.filter((row) => selectedIds.includes(row.id));
  const editing = useAllowed('edit');

  const makePrimary = async () => {
    if (!company) return;
    setSettingPrimary(true);
    try {
      const chosen = await setPrimaryDomain(dataProvider, company.id, String(selectedIds[0]));
      onUnselectItems();
      // The rows' and the card's Primary marks are the provider's: read them again.
      refresh();
      if (chosen) {
        notify('iam.domains.primaryChanged', {
          type: 'info',
          messageArgs: { name: chosen.name },
          action: <SwitchToItButton domain={chosen} />,
          // Long enough to reach the action; the toolbar's Switch does the same at any time.
          autoHideDuration: 10_000,
        });
      }
    } catch (error) {
      notify((error as Error).message || 'ra.notification.http_error', { type: 'error' });
    } finally {
      setSettingPrimary(false);
    }
  };

  // Makes the selected domain the one the console works in, without changing which one is primary.
  const switchTo = () => {
    const chosen = selected[0];
    if (!chosen) return;
    const from = currentTenant();
    const switched = switchToDomain(chosen);
    onUnselectItems();
    if (switched) announceSwitch(from, switched);
  };

  const newState: DomainFormState = { company, mode: 'new', domainCount: total + (current ? 1 : 0) };
  const remaining = total + (current ? 1 : 0) - selectedIds.length;
  const deleteReason = domainDeleteReason(selected, client, company?.id, remaining, translate);
  const switchReason = selectedIds.length !== 1 ? translate('iam.domains.selectOneToSwitch') : undefined;
  const primaryReason =
    editing.reason ??
    (selectedIds.length !== 1
      ? translate('iam.domains.selectOneForPrimary')
      : selected[0]?.primary
        ? translate('iam.domains.alreadyPrimary', { name: selected[0].name })
        : undefined);

  return (
    <TopToolbar>
      <NewButton onClick={() => navigate(routes.form, { state: newState })} />
      <DeleteSelectedButton meta={meta} successMessage="iam.domains.deleted" disabledReason={deleteReason} />
      <DisabledReason reason={switchReason}>
        <Button startIcon={<SwapHorizIcon />} disabled={Boolean(switchReason)} onClick={switchTo}>
          {translate('iam.domains.switch')}
        </Button>
      </DisabledReason>
      <DisabledReason reason={primaryReason}>
        <Button startIcon={<StarIcon />} disabled={Boolean(primaryReason) || settingPrimary || !editing.allowed} onClick={makePrimary}>
          {translate('iam.domains.setPrimary')}
        </Button>
      </DisabledReason>
    </TopToolbar>
  );
}

/**
 * The current domain's own things, one click from its card (docs/CONSOLE.md, "Domains"): its screen
 * (general, History), its Security tab, and its outbox for those who may read it.
 */
function CurrentDomainLinks({ company, domain }: { company: Company; domain: Domain }) {
  const translate = useTranslate();
  const outboxReadable = useCanAccess({ resource: outbox.name, action: 'list' }).canAccess === true;
  const state = domainSettingsState(company, domain);
  return (
    <>
      <Button variant="outlined" size="small" component={LinkBase} to={domainSettingsHref(company, domain)} state={state} startIcon={<SettingsIcon />}>
        {translate('iam.domains.settings')}
      </Button>
      <Button size="small" component={LinkBase} to={domainSettingsHref(company, domain, 'security')} state={state} startIcon={<SecurityIcon />}>
        {translate('iam.domains.security')}
      </Button>
      {outboxReadable && (
        <Button size="small" component={LinkBase} to={outbox.routes.list} startIcon={<MailIcon />}>
          {translate('iam.domains.outbox')}
        </Button>
      )}
    </>
  );
}

export default function DomainList() {
  const { routes } = useDeclaration();
  const { company, domain } = useSession();
  const translate = useTranslate();
  const navigate = useNavigate();
  // The current domain has its own panel; the list holds the others.
  const meta = useListMeta(domain ? { condition: `id,!=,${domain.id}` } : {});
  // "Current" is where the console works; "Primary" is the company's default domain. They are
  // marked separately, from the provider's answer (docs/CONSOLE.md, "Domains").
  const primaryId = usePrimaryDomainId() ?? (domain?.primary ? domain.id : undefined);
  const primaryChip = (sx?: object) => (
    <Chip size="small" color="primary" variant="outlined" label={translate('iam.domains.primary')} sx={sx} />
  );
  let cardExtra;
  if (!domain) cardExtra = <NoDomainGuidance level="h3" />;
  else if (primaryId === domain.id) cardExtra = primaryChip({ mt: 1 });

  return (
    <>
      <CurrentRecordCard
        heading={translate('iam.domains.current')}
        name={domain?.name}
        description={domain?.description}
        extra={cardExtra}
        actions={company && domain && <CurrentDomainLinks company={company} domain={domain} />}
      />
      <DeclaredList
        title={translate('iam.menu.domains')}
        meta={meta}
        actions={<DomainActions />}
        onRowClick={(record) =>
          navigate(recordHref('domains', record.id, { companyId: company?.id ?? '', domainId: '' }) ?? routes.form, {
            state: { company, domain: record, mode: 'view' } satisfies DomainFormState,
          })
        }
        extraColumns={[
          <FunctionField
            key="primary"
            source="primary"
            label="resources.domains.fields.primary"
            sortable={false}
            render={(record: RaRecord) => (record.primary ? primaryChip() : null)}
          />,
        ]}
      />
    </>
  );
}
