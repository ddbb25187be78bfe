import { useState } from 'react';
import {
  Dialog,
  DialogContent,
  DialogTitle,
  IconButton,
  InputAdornment,
  List,
  ListItem,
  ListItemText,
  ListSubheader,
  TextField,
  Tooltip,
} from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslate } from 'react-admin';

const RECENT_SEARCHES = ['one', 'two', 'three'] as const;
const RECENT_PAGES = ['one', 'two', 'three'] as const;

/** SPEC 2.6: a static sample search dialog with recent searches and pages; it searches nothing. */
export function SearchButton() {
  const translate = useTranslate();
  const [open, setOpen] = useState(false);
  const label = translate('iam.layout.search');
  return (
    <>
      <Tooltip title={label}>
        <IconButton color="inherit" aria-label={label} aria-haspopup="dialog" onClick={() => setOpen(true)}>
          <SearchIcon />
        </IconButton>
      </Tooltip>
      <Dialog open={open} onClose={() => setOpen(false)} fullWidth maxWidth="sm" aria-labelledby="search-title">
        <DialogTitle id="search-title">{label}</DialogTitle>
        <DialogContent>
          <TextField
            autoFocus
            fullWidth
            placeholder={translate('iam.layout.searchPlaceholder')}
            slotProps={{
              htmlInput: { 'aria-label': label },
              input: {
                startAdornment: (
                  <InputAdornment position="start">
                    <SearchIcon />
                  </InputAdornment>
                ),
              },
            }}
          />
          <List dense subheader={<ListSubheader disableSticky>{translate('iam.layout.recentSearches')}</ListSubheader>}>
            {RECENT_SEARCHES.map((key) => (
              <ListItem key={key}>
                <ListItemText primary={translate(`iam.layout.searchSamples.${key}`)} />
              </ListItem>
            ))}
          </List>
          <List dense subheader={<ListSubheader disableSticky>{translate('iam.layout.recentPages')}</ListSubheader>}>
            {RECENT_PAGES.map((key) => (
              <ListItem key={key}>
                <ListItemText primary={translate(`iam.layout.pageSamples.${key}`)} />
              </ListItem>
            ))}
          </List>
        </DialogContent>
      </Dialog>
    </>
  );
}
