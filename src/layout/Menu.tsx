import { useEffect, useState } from 'react';
import { Badge, Box, Collapse, ListItemIcon, ListItemText, MenuItem, MenuList, Tooltip, Typography } from '@mui/material';
import ExpandLessIcon from '@mui/icons-material/ExpandLess';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { DRAWER_WIDTH, useCanAccessResources, useLocation, useSidebarState, useTranslate } from 'react-admin';
import { registry } from '../resources/registry';
import { MenuLink as MenuItemLink, WRAPPED_LABEL } from './MenuLink';
import { companyLabel } from '../session/place';
import { useSession } from '../session/useSession';
import { menuTree, type MenuEntry, type MenuLeaf } from './menuTree';

function Leaf({ leaf, nested }: { leaf: MenuLeaf; nested: boolean }) {
  const translate = useTranslate();
  const label = translate(leaf.labelKey, { _: leaf.fallback, smart_count: 2 });
  const sx = nested ? { pl: 4 } : undefined;
  if (leaf.fullPage) {
    // a group's entries show only in the open side bar: a long label wraps (MenuLink.tsx)
    return (
      <MenuItem component="a" href={leaf.to} sx={{ ...sx, ...WRAPPED_LABEL }}>
        <ListItemText primary={label} />
      </MenuItem>
    );
  }
  return <MenuItemLink to={leaf.to} search={leaf.search} primaryText={label} sx={sx} />;
}

function Group({ entry }: { entry: MenuEntry }) {
  const translate = useTranslate();
  const { pathname } = useLocation();
  const [sidebarOpen, setSidebarOpen] = useSidebarState();
  const containsCurrent = entry.children?.some((leaf) => leaf.to === pathname) ?? false;
  const [expanded, setExpanded] = useState(containsCurrent);
  // a screen of the group reached otherwise (a search result, a dashboard link, back after a save) shows its entry
  useEffect(() => {
    if (containsCurrent) setExpanded(true);
  }, [containsCurrent]);
  const Icon = entry.icon;
  const label = translate(entry.labelKey, { _: entry.fallback, smart_count: 2 });
  const listId = `menu-${entry.id}`;
  // The entries of a group have no icons: in the collapsed (icons only) side bar they would show
  // as clipped words, so a group opens only in the expanded side bar; clicking it there expands both.
  const shown = expanded && sidebarOpen;
  const toggle = () => {
    if (sidebarOpen) return setExpanded(!expanded);
    setSidebarOpen(true);
    setExpanded(true);
  };

  return (
    <>
      <Tooltip title={sidebarOpen ? '' : label} placement="right">
        <MenuItem aria-expanded={shown} aria-controls={listId} onClick={toggle} sx={sidebarOpen ? WRAPPED_LABEL : undefined}>
          <ListItemIcon>
            <Icon />
          </ListItemIcon>
          <ListItemText primary={label} />
          {shown ? <ExpandLessIcon /> : <ExpandMoreIcon />}
        </MenuItem>
      </Tooltip>
      <Collapse in={shown} timeout="auto" unmountOnExit>
        <MenuList id={listId} disablePadding dense>
          {entry.children?.map((leaf) => <Leaf key={leaf.to} leaf={leaf} nested={sidebarOpen} />)}
        </MenuList>
      </Collapse>
    </>
  );
}

function Single({ entry }: { entry: MenuEntry }) {
  const translate = useTranslate();
  const Icon = entry.icon;
  const icon = entry.badgeKey ? (
    <Badge badgeContent={translate(entry.badgeKey)} color="error">
      <Icon />
    </Badge>
  ) : (
    <Icon />
  );
  return <MenuItemLink to={entry.to ?? '/'} search={entry.search} primaryText={translate(entry.labelKey, { _: entry.fallback, smart_count: 2 })} leftIcon={icon} />;
}

/** The declared resources that have menu entries. */
const LISTED = registry.filter((declaration) => !declaration.embeddedIn);
const LISTED_NAMES = LISTED.map((declaration) => declaration.name);

/**
 * The side bar: 'Company [domain]' heading (display names), then the menu tree (docs/CONSOLE.md,
 * "Layout"), with the entries of the resources the person may read here (docs/CONSOLE.md, "Roles").
 */
export function Menu() {
  const translate = useTranslate();
  const { company, domain, accessToken } = useSession();
  const [sidebarOpen] = useSidebarState();
  const { canAccess: readable } = useCanAccessResources({ action: 'list', resources: LISTED_NAMES });
  const declarations = LISTED.filter((declaration) => readable?.[declaration.name]);
  return (
    <Box
      component="nav"
      aria-label={translate('iam.appTitle')}
      // no wider than the open side bar, so that a long label wraps (MenuLink.tsx) instead of being cut at its edge
      sx={{ pb: 2, maxWidth: sidebarOpen ? (theme) => (theme as { sidebar?: { width?: number } }).sidebar?.width ?? DRAWER_WIDTH : undefined }}
    >
      {sidebarOpen && company && (
        <Typography
          variant="subtitle2"
          component="h2"
          // Long company and domain names wrap instead of widening the side bar past its chevrons.
          sx={{
            px: 2,
            py: 1.5,
            fontWeight: 700,
            overflowWrap: 'anywhere',
            maxWidth: (theme) => (theme as { sidebar?: { width?: number } }).sidebar?.width ?? DRAWER_WIDTH,
          }}
        >
          {/* A company with no domain yet shows no empty "[]" (docs/CONSOLE.md, "Layout"). */}
          {domain
            ? translate('iam.layout.sidebarHeading', { company: companyLabel(company), domain: domain.name || domain.id })
            : translate('iam.layout.sidebarHeadingNoDomain', { company: companyLabel(company) })}
        </Typography>
      )}
      <MenuList disablePadding>
        {menuTree(Boolean(accessToken), declarations).map((entry) =>
          entry.children ? <Group key={entry.id} entry={entry} /> : <Single key={entry.id} entry={entry} />,
        )}
      </MenuList>
    </Box>
  );
}
