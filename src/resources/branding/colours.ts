import { getContrastRatio } from '@mui/material/styles';

/** WCAG AA for text: what the provider asks of a theme's primary colour on its background (docs/CONSOLE.md, "Branding"). */
export const MIN_CONTRAST = 4.5;

export const isHex = (value: string) => /^#[0-9a-f]{6}$/i.test(value);

/** The provider's own colours, where no company in the line sets any (the console's themes). */
export const DEFAULT_COLOURS = {
  primaryLight: '#1565c0',
  backgroundLight: '#fafafb',
  primaryDark: '#90caf9',
  backgroundDark: '#313131',
} as const;

/** The WCAG contrast ratio of two #rrggbb colours, 1 to 21. */
export const contrastOf = (a: string, b: string) => getContrastRatio(a, b);

/** White or near-black, whichever reads better on the colour. */
export const textOn = (colour: string) => (getContrastRatio(colour, '#fff') >= getContrastRatio(colour, '#000') ? '#fff' : 'rgba(0, 0, 0, 0.87)');
