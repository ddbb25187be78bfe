import { Badge, Box, ListItemIcon, ListItemText, MenuItem, Typography } from '@mui/material';
import NotificationsIcon from '@mui/icons-material/Notifications';
import HelpOutlinedIcon from '@mui/icons-material/HelpOutlined';
import SettingsIcon from '@mui/icons-material/Settings';
import LogoutIcon from '@mui/icons-material/Logout';
import AccountCircleIcon from '@mui/icons-material/AccountCircle';
import type { MouseEvent } from 'react';
import {
  AppBar as RaAppBar,
  LoadingIndicator,
  TitlePortal,
  ToggleThemeButton,
  UserMenu,
  useGetIdentity,
  useNavigate,
  useTranslate,
  useUserMenu,
} from 'react-admin';
import { LanguageMenu } from '../i18n/LanguageMenu';
import { accountPageLink, openAccountPage } from './openAccountPage';
import { SearchButton } from './SearchButton';
import { StaticMenuButton } from './StaticMenuButton';
import { TenantSwitcher } from './TenantSwitcher';
import { BrandLogo } from '../resources/branding/BrandLogo';

function UserMenuItems() {
  const translate = useTranslate();
  const { identity } = useGetIdentity();
  const userMenu = useUserMenu();
  const navigate = useNavigate();
  return (
    <>
      <Box sx={{ px: 2, py: 1 }}>
        <Typography variant="subtitle1" component="p">
          {identity?.fullName}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {identity?.email as string | undefined}
        </Typography>
      </Box>
      <MenuItem
        onClick={() => {
          userMenu?.onClose();
          navigate('/settings/account');
        }}
      >
        <ListItemIcon>
          <SettingsIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText>{translate('iam.layout.settings')}</ListItemText>
      </MenuItem>
      {/* The provider's account page (second factors, recovery codes), opened with this sign-in: a full page load (openAccountPage.ts). */}
      <MenuItem
        component="a"
        href={accountPageLink()}
        onClick={(event: MouseEvent) => {
          // a new tab or window (modifier keys, middle button) gets the plain link
          if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey || event.button !== 0) return;
          event.preventDefault();
          userMenu?.onClose();
          void openAccountPage();
        }}
      >
        <ListItemIcon>
          <AccountCircleIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText>{translate('iam.layout.myAccount')}</ListItemText>
      </MenuItem>
      {/* /logout is a sign-in page outside the admin app: a full page load. */}
      <MenuItem component="a" href="/logout">
        <ListItemIcon>
          <LogoutIcon fontSize="small" />
        </ListItemIcon>
        <ListItemText>{translate('iam.layout.logout')}</ListItemText>
      </MenuItem>
    </>
  );
}

function Toolbar() {
  const translate = useTranslate();
  return (
    <>
      <SearchButton />
      <StaticMenuButton
        label={translate('iam.layout.notifications')}
        icon={
          <Badge variant="dot" color="error">
            <NotificationsIcon />
          </Badge>
        }
        items={[translate('iam.layout.notificationSamples.one'), translate('iam.layout.notificationSamples.two')]}
      />
      <StaticMenuButton
        label={translate('iam.layout.help')}
        icon={<HelpOutlinedIcon />}
        items={[
          translate('iam.layout.helpItems.documentation'),
          translate('iam.layout.helpItems.support'),
          translate('iam.layout.helpItems.contact'),
        ]}
      />
      <LanguageMenu />
      <ToggleThemeButton />
      <LoadingIndicator />
    </>
  );
}

export function AppBar() {
  return (
    <RaAppBar
      toolbar={<Toolbar />}
      userMenu={
        <UserMenu>
          <UserMenuItems />
        </UserMenu>
      }
    >
      <BrandLogo />
      <TitlePortal />
      <TenantSwitcher />
    </RaAppBar>
  );
}
