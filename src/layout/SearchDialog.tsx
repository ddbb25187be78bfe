import { Dialog, DialogContent, DialogTitle, InputAdornment, List, ListItem, ListItemText, ListSubheader, TextField } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';
import { useTranslate } from 'react-admin';

const RECENT_SEARCHES = ['one', 'two', 'three'] as const;
const RECENT_PAGES = ['one', 'two', 'three'] as const;

/**
 * docs/CONSOLE.md, "Layout": a static sample search dialog with recent searches and pages; it searches nothing.
 * Loaded by SearchButton on first use, so its text field is not part of the first screen.
 */
export default function SearchDialog({ open, onClose, label }: { open: boolean; onClose: () => void; label: string }) {
  const translate = useTranslate();
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="search-title">
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
  );
}
