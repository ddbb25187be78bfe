import { useId, useState, type ReactNode } from 'react';
import { IconButton, Menu, MenuItem, Tooltip } from '@mui/material';

interface StaticMenuButtonProps {
  label: string;
  icon: ReactNode;
  items: readonly string[];
}

/** A top-bar button opening a menu of static sample entries (notifications, help). */
export function StaticMenuButton({ label, icon, items }: StaticMenuButtonProps) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();
  return (
    <>
      <Tooltip title={label}>
        <IconButton
          color="inherit"
          aria-label={label}
          aria-haspopup="menu"
          aria-controls={anchor ? menuId : undefined}
          aria-expanded={Boolean(anchor)}
          onClick={(event) => setAnchor(event.currentTarget)}
        >
          {icon}
        </IconButton>
      </Tooltip>
      <Menu id={menuId} anchorEl={anchor} open={Boolean(anchor)} onClose={() => setAnchor(null)}>
        {items.map((item) => (
          <MenuItem key={item} onClick={() => setAnchor(null)}>
            {item}
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}
