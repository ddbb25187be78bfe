import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../../test/fetchMock';
import { clearSession, updateSession } from '../../session/session';
import { brandingSaved } from './api';
import { BrandLogo } from './BrandLogo';

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the console wears the signed-in company\'s branding (docs/CONSOLE.md, "Branding")', () => {
  it("reads it once after sign-in, shows the logo, and follows a save of that company's branding only", async () => {
    updateSession({ rootCompany: { id: 'resell', name: 'resell' }, company: { id: 'acme', name: 'acme' }, accessToken: 't' });
    const { requests } = mockFetch(() => ({ json: { id: 'resell', effective: { displayName: 'Resell Inc', logoUrl: '/branding/resell/logo?v=1' } } }));
    render(<BrandLogo />);
    const logo = await screen.findByRole('img', { name: 'Resell Inc' });
    expect(logo).toHaveAttribute('src', '/branding/resell/logo?v=1');
    render(<BrandLogo />);
    // one read, of the signed-in company (not the current one)
    expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual(['GET /api/companys/resell/branding']);

    act(() => void brandingSaved('acme', { displayName: 'Acme', logoUrl: '/branding/acme/logo?v=1' }));
    expect(screen.getAllByRole('img', { name: 'Resell Inc' })).toHaveLength(2);
    act(() => void brandingSaved('resell', { displayName: 'Resell 2', logoUrl: '/branding/resell/logo?v=2' }));
    expect(screen.getAllByRole('img', { name: 'Resell 2' })[0]).toHaveAttribute('src', '/branding/resell/logo?v=2');
    // a logo that does not load is not shown broken
    act(() => void screen.getAllByRole('img')[0].dispatchEvent(new Event('error')));
    expect(screen.getAllByRole('img')).toHaveLength(1);
    act(() => void brandingSaved('resell', {}));
    expect(screen.queryByRole('img')).toBeNull();
  });
});
