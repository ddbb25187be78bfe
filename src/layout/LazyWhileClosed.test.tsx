import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import Menu, { type MenuProps } from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyWhileClosed } from './LazyWhileClosed';

/** A lazy menu whose MUI Menu arrives when the test says so. */
function deferred() {
  let arrive: () => void = () => undefined;
  const loader = vi.fn(
    () =>
      new Promise<{ default: typeof Menu }>((resolve) => {
        arrive = () => resolve({ default: Menu });
      }),
  );
  return { LazyMenu: lazyWhileClosed<MenuProps>(loader), loader, arrive: () => act(async () => arrive()) };
}

afterEach(cleanup);

describe('lazyWhileClosed', () => {
  it('renders nothing while closed (kept mounted too) and loads nothing before the first input; a menu opened before MUI arrives shows once it is there', async () => {
    const { LazyMenu, loader, arrive } = deferred();
    function Button() {
      const [anchor, setAnchor] = useState<HTMLElement | null>(null);
      return (
        <>
          <button type="button" onClick={(event) => setAnchor(event.currentTarget)}>
            Open
          </button>
          <LazyMenu open={Boolean(anchor)} anchorEl={anchor} onClose={() => setAnchor(null)}>
            <MenuItem>First</MenuItem>
          </LazyMenu>
        </>
      );
    }
    render(
      <>
        <Button />
        <LazyMenu open={false} keepMounted>
          <MenuItem>Hidden</MenuItem>
        </LazyMenu>
      </>,
    );
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(loader).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(loader).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    await arrive();
    expect(await screen.findByRole('menuitem', { name: 'First' })).toBeInTheDocument();
  });

  it("loads MUI's at the first input anywhere", () => {
    const { loader } = deferred();
    fireEvent.keyDown(window, { key: 'Tab' });
    expect(loader).toHaveBeenCalledTimes(1);
  });
});
