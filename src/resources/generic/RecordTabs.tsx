import { Suspense, useState, type ComponentType, type ReactNode } from 'react';
import { Box, Card, CardContent, LinearProgress, Paper, Tab, Tabs, Typography } from '@mui/material';
import { Title, useCanAccessResources, useLocation, useTranslate, type RaRecord } from 'react-admin';
import type { PathContext } from '../../session/session';
import { auditEvents, HistoryTab } from '../auditEvents';
import type { RecordTabProps } from '../types';
import { useDeclaration } from './DeclarationContext';
import { linkedPart } from './recordLink';


export interface RecordTab {
  /** Unique in the screen: names the tab's and panel's element ids. */
  id: string;
  labelKey: string;
  content: ReactNode;
  /** The content brings its own card (a form). */
  framed?: boolean;
  /** Shown but not selectable (a new group's Members). */
  disabled?: boolean;
  /** Stays mounted while another tab shows, so a form being edited keeps its values. */
  keepMounted?: boolean;
}

interface RecordTabsProps {
  /** Element ids: `<idPrefix>-tab-<id>`, `<idPrefix>-panel-<id>`. */
  idPrefix: string;
  /** The screen's own tabs, first. */
  tabs: readonly RecordTab[];
  /** The record shown; without one (a new record) only the screen's own tabs. */
  record?: RaRecord;
  /** The company and domain the record belongs to. */
  context: PathContext;
  /** A heading above the tabs (the view screens); forms have theirs in the card. */
  title?: string;
  /** Names the tab list when there is no title. */
  label?: string;
  /** 'none': as wide as the page (a group's member lists). */
  maxWidth?: number | 'none';
}

/** The History tab reads the audit log's records. */
const History = (props: RecordTabProps) => <HistoryTab {...props} log={auditEvents} />;

interface ShownTab extends RecordTab {
  component?: ComponentType<RecordTabProps>;
  /** A declared tab's list: shown to those who may read it. */
  lists?: string;
}

/**
 * A record screen's tabs (docs/CONSOLE.md, "Resources"): the screen's own (a form, a view's Quick
 * Start) and, once the record exists, the declaration's record tabs (History for an audited type,
 * docs/CONSOLE.md, "History and audit log"; a user's Sign-ins, Sessions and Roles), those whose list
 * the person may read (docs/CONSOLE.md, "Roles"). A new record with only one tab shows it without a
 * tab bar. Arrow keys move between tabs; declared tabs load on first use.
 */
export function RecordTabs({ idPrefix, tabs, record, context, title, label, maxWidth = 960 }: RecordTabsProps) {
  const declaration = useDeclaration();
  const translate = useTranslate();
  const declared: (ShownTab & { lists: string })[] = record
    ? [
        ...(declaration.history ? [{ id: 'history', labelKey: 'iam.history.tab', component: History, lists: auditEvents.name, content: null }] : []),
        ...(declaration.recordTabs ?? []).map((tab) => ({ ...tab, content: null })),
      ]
    : [];
  const { canAccess: readable } = useCanAccessResources({ action: 'list', resources: declared.map((tab) => tab.lists) });
  const shown: ShownTab[] = [...tabs, ...declared.filter((tab) => readable?.[tab.lists])];
  // a record address may name one of the screen's own tabs (`?tab=members`, generic/recordLink)
  const { tab: linked } = linkedPart(useLocation().search);
  const first = tabs.find((tab) => tab.id === linked && !tab.disabled)?.id ?? shown[0]?.id;
  const [active, setActive] = useState(first);
  const [visited, setVisited] = useState<ReadonlySet<string>>(() => new Set([first]));
  const select = (id: string) => {
    setActive(id);
    setVisited((before) => new Set(before).add(id));
  };

  const panel = (tab: ShownTab) => {
    const Component = tab.component;
    const content = Component ? (
      <Suspense fallback={<LinearProgress aria-label={translate('iam.list.loading')} />}>
        <Component declaration={declaration} record={record!} context={context} />
      </Suspense>
    ) : (
      tab.content
    );
    return tab.framed ? (
      content
    ) : (
      <Card sx={{ mt: 2 }}>
        <CardContent>{content}</CardContent>
      </Card>
    );
  };

  const heading = title && (
    <>
      <Title title={title} />
      <Typography variant="h5" component="h1" gutterBottom>
        {title}
      </Typography>
    </>
  );

  // decided before the roles answer, so that the screen's own tab is not mounted again when they do
  if (tabs.length === 1 && declared.length === 0 && !title) return <>{panel(shown[0])}</>;

  return (
    // a card inside (a form brings its own, narrower on its own) is as wide as the tab bar above it
    <Box sx={{ mt: 2, maxWidth: maxWidth === 'none' ? undefined : maxWidth, '& [role="tabpanel"] .MuiCard-root': { maxWidth: 'none' } }}>
      {heading}
      {/* On a paper surface: the selected tab's primary colour keeps 4.5:1 there, not on the grey page. */}
      <Paper>
        {/* width 0, then the paper's width: the tabs scroll inside it rather than widening a phone's page */}
        <Tabs
          value={active}
          onChange={(_event, value: string) => select(value)}
          variant="scrollable"
          aria-label={title ?? label}
          sx={{ width: 0, minWidth: '100%' }}
        >
          {shown.map((tab) => (
            <Tab
              key={tab.id}
              value={tab.id}
              label={translate(tab.labelKey)}
              disabled={tab.disabled}
              id={`${idPrefix}-tab-${tab.id}`}
              aria-controls={`${idPrefix}-panel-${tab.id}`}
            />
          ))}
        </Tabs>
      </Paper>
      {shown.map((tab) => {
        const selected = tab.id === active;
        const mounted = selected || (tab.keepMounted && visited.has(tab.id));
        return (
          <div key={tab.id} role="tabpanel" hidden={!selected} id={`${idPrefix}-panel-${tab.id}`} aria-labelledby={`${idPrefix}-tab-${tab.id}`}>
            {mounted && panel(tab)}
          </div>
        );
      })}
    </Box>
  );
}
