import { forwardRef, type ReactElement, type ReactNode } from 'react';
import { ListItemIcon, MenuItem, Tooltip, Typography, useMediaQuery, type SxProps, type Theme } from '@mui/material';
import { styled } from '@mui/material/styles';
import { LinkBase, useMatch, useSidebarState } from 'react-admin';

/**
 * A side-bar entry: react-admin's MenuItemLink without its keyboard-shortcut support, which pulls
 * react-hotkeys-hook (about 5 kB gzipped) into the first screen after sign-in (docs/PERFORMANCE.md,
 * "Console bundle"). Same classes (RaMenuItemLink-*) and behaviour: active mark, icon, the label as
 * a tooltip while the side bar is collapsed, and on small screens a tap closes the side bar.
 */
interface MenuLinkProps {
  to: string;
  /** The query the link adds (a list opened afresh); the entry is marked active on the path alone. */
  search?: string;
  primaryText: ReactNode;
  leftIcon?: ReactElement;
  sx?: SxProps<Theme>;
}

const classes = { root: 'RaMenuItemLink-root', active: 'RaMenuItemLink-active', icon: 'RaMenuItemLink-icon' };

const StyledMenuItem = styled(MenuItem)(({ theme }) => ({
  color: (theme.vars || theme).palette.text.secondary,
  [`& .${classes.icon}`]: { color: (theme.vars || theme).palette.text.secondary, minWidth: theme.spacing(5) },
  [`&.${classes.active}`]: { color: (theme.vars || theme).palette.text.primary },
}));

/**
 * In the open side bar a label too long for its width (French, German) wraps onto a second line
 * rather than being cut off (docs/CONSOLE.md, "Languages"); a single long word (a German compound)
 * is hyphenated where the browser can, else broken. The collapsed side bar keeps one line.
 */
export const WRAPPED_LABEL = { whiteSpace: 'normal', overflowWrap: 'anywhere', hyphens: 'auto' } as const;

const Link = forwardRef<HTMLAnchorElement, { to: string | { pathname: string; search?: string } }>((props, ref) => <LinkBase ref={ref} {...props} />);

export function MenuLink({ to, search, primaryText, leftIcon, sx }: MenuLinkProps) {
  const [open, setOpen] = useSidebarState();
  const isSmall = useMediaQuery((theme: Theme) => theme.breakpoints.down('md'));
  const match = useMatch({ path: to, end: to === '/' });
  const item = (
    <StyledMenuItem
      // @ts-expect-error MenuItem passes `to` on to the link component
      component={Link}
      to={search ? { pathname: to, search } : to}
      tabIndex={0}
      sx={open ? [WRAPPED_LABEL, ...(Array.isArray(sx) ? sx : [sx])] : sx}
      className={match ? `${classes.root} ${classes.active}` : classes.root}
      onClick={() => isSmall && setOpen(false)}
    >
      {leftIcon && <ListItemIcon className={classes.icon}>{leftIcon}</ListItemIcon>}
      <Typography variant="inherit" noWrap={!open} sx={{ flexGrow: 1 }}>
        {primaryText}
      </Typography>
    </StyledMenuItem>
  );
  return open ? (
    item
  ) : (
    <Tooltip title={primaryText} placement="right">
      {item}
    </Tooltip>
  );
}
