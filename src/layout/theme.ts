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

/**
 * One input variant in every form (docs/CONSOLE.md, "Resources"): filled, react-admin's own, which
 * most forms used already; stated here so MUI fields outside react-admin's inputs get it too.
 */
const formInputs: RaThemeOptions = {
  components: {
    MuiTextField: { defaultProps: { variant: 'filled' } },
    MuiFormControl: { defaultProps: { variant: 'filled' } },
  },
};

/**
 * react-admin's light blues give white text 3.1:1 and blue text on the page 4.4:1; these pass WCAG AA.
 * MUI's error red gives 4.1:1 on a filled input's grey (the label of a field in error): a darker red.
 */
const accessibleLightPalette: RaThemeOptions = {
  palette: {
    primary: { main: '#1565c0', contrastText: '#fff' },
    secondary: { light: '#5e92f3', main: '#1565c0', dark: '#003c8f', contrastText: '#fff' },
    error: { main: '#c62828' },
  },
};

export const lightTheme: RaThemeOptions = deepmerge(
  deepmerge(deepmerge(defaultLightTheme, accessibleLightPalette), accessibleCheckboxes),
  formInputs,
);
/** MUI's dark error red gives 3.5:1 on react-admin's dark page (an enabled Delete): a lighter red, 5.9:1 there. */
const accessibleDarkPalette: RaThemeOptions = { palette: { error: { main: '#ef9a9a' } } };

export const darkTheme: RaThemeOptions = deepmerge(deepmerge(deepmerge(defaultDarkTheme, accessibleDarkPalette), accessibleCheckboxes), formInputs);
