import { deepmerge } from '@mui/utils';
import { defaultDarkTheme, defaultLightTheme, type RaThemeOptions } from 'react-admin';
import { en } from '../i18n/en';

type CheckboxOwnerState = { 'aria-label'?: string; inputProps?: { 'aria-label'?: string } };

/**
 * react-admin names its list checkboxes with `aria-label` (rows) and `inputProps` (select all);
 * MUI 9 forwards both to the wrapper span, where a label is not allowed and the input stays
 * nameless. Move the name onto the input itself, for every checkbox of the console.
 */
const accessibleCheckboxes: RaThemeOptions = {
  components: {
    MuiCheckbox: {
      defaultProps: {
        slotProps: {
          root: () => ({ 'aria-label': undefined, inputProps: undefined }),
          input: (ownerState: CheckboxOwnerState) => ({
            'aria-label': ownerState['aria-label'] ?? ownerState.inputProps?.['aria-label'],
          }),
        },
      } as object,
    },
    // A progressbar needs a name (WCAG 4.1.2): react-admin's loading indicator and the spinners in
    // saving buttons have none. Spinners that say more pass their own aria-label.
    MuiCircularProgress: {
      defaultProps: { 'aria-label': en.iam.list.loading },
    },
  },
};

/** react-admin's light blues give white text 3.1:1 and blue text on the page 4.4:1; these pass WCAG AA. */
const accessibleLightPalette: RaThemeOptions = {
  palette: {
    primary: { main: '#1565c0', contrastText: '#fff' },
    secondary: { light: '#5e92f3', main: '#1565c0', dark: '#003c8f', contrastText: '#fff' },
  },
};

export const lightTheme: RaThemeOptions = deepmerge(deepmerge(defaultLightTheme, accessibleLightPalette), accessibleCheckboxes);
export const darkTheme: RaThemeOptions = deepmerge(defaultDarkTheme, accessibleCheckboxes);
