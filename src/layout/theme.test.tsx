import { render, screen } from '@testing-library/react';
import { Checkbox, CircularProgress, createTheme, getContrastRatio, ThemeProvider } from '@mui/material';
import { darkTheme, lightTheme } from './theme';

describe('console themes', () => {
  for (const [name, options] of [['light', lightTheme], ['dark', darkTheme]] as const) {
    it(`${name}: list checkboxes carry their name on the input, not on the wrapper`, () => {
      render(
        <ThemeProvider theme={createTheme(options)}>
          <Checkbox aria-label="Select this row" />
          {/* react-admin's select-all checkbox still passes the MUI 5 inputProps */}
          <Checkbox {...({ inputProps: { 'aria-label': 'Select all' } } as object)} />
        </ThemeProvider>,
      );
      const row = screen.getByRole('checkbox', { name: 'Select this row' });
      expect(row.tagName).toBe('INPUT');
      expect(row.parentElement).not.toHaveAttribute('aria-label');
      expect(screen.getByRole('checkbox', { name: 'Select all' }).tagName).toBe('INPUT');
      expect(document.querySelector('[inputprops]')).toBeNull();
    });

    it(`${name}: every progress spinner has a name, its own when given`, () => {
      render(
        <ThemeProvider theme={createTheme(options)}>
          <CircularProgress />
          <CircularProgress aria-label="Saving" />
        </ThemeProvider>,
      );
      expect(screen.getByRole('progressbar', { name: 'Loading…' })).toBeInTheDocument();
      expect(screen.getByRole('progressbar', { name: 'Saving' })).toBeInTheDocument();
    });
  }

  it('light: the app bar, buttons and links meet WCAG AA contrast (4.5:1)', () => {
    const theme = createTheme(lightTheme);
    expect(getContrastRatio(theme.palette.secondary.contrastText, theme.palette.secondary.main)).toBeGreaterThanOrEqual(4.5);
    expect(getContrastRatio(theme.palette.primary.contrastText, theme.palette.primary.main)).toBeGreaterThanOrEqual(4.5);
    expect(getContrastRatio(theme.palette.primary.main, theme.palette.background.default)).toBeGreaterThanOrEqual(4.5);
  });
});
