import { Badge, Box, ListItemIcon, ListItemText, MenuItem, Typography } from '@mui/material';
import NotificationsIcon from '@mui/icons-material/Notifications';
import HelpOutlinedIcon from '@mui/icons-material/HelpOutlined';
import SettingsIcon from '@mui/icons-material/Settings';
import LogoutIcon from '@mui/icons-material/Logout';
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
import { getSession } from '../session/session';
import { SearchButton } from './SearchButton';
import { StaticMenuButton } from './StaticMenuButton';
import { TenantSwitcher } from './TenantSwitcher';

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
      {/* The provider's account page (second factors) for the organization signed in to: a full page load. */}
      <MenuItem component="a" href={`/account?${new URLSearchParams({ company: getSession().client?.companyId ?? '', domain: getSession().client?.domain ?? '' })}`}>
        <ListItemText inset>{translate('iam.layout.accountSecurity', { _: 'Account and security' })}</ListItemText>
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
      <TitlePortal />
      <TenantSwitcher />
    </RaAppBar>
  );
}
