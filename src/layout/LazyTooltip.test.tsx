import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import Tooltip from '@mui/material/Tooltip';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lazyTooltip } from './LazyTooltip';

/** A lazy tooltip whose MUI Tooltip arrives when the test says so. */
function deferred() {
  let arrive: () => void = () => undefined;
  const loader = vi.fn(
    () =>
      new Promise<{ default: typeof Tooltip }>((resolve) => {
        arrive = () => resolve({ default: Tooltip });
      }),
  );
  return { LazyTooltip: lazyTooltip(loader), loader, arrive: () => act(async () => arrive()) };
}

afterEach(cleanup);

/** A lazy tooltip over a "Switch" button that counts its clicks, MUI's Tooltip not there yet. */
function switchButton() {
  const { LazyTooltip, arrive } = deferred();
  const clicked = vi.fn();
  render(
    <LazyTooltip title="Switch">
      <button type="button" onClick={clicked}>S</button>
    </LazyTooltip>,
  );
  return { arrive, clicked, pressed: screen.getByRole('button', { name: 'Switch' }) };
}

/** Lets timers and React's updates run for 10 ms. */
const settle = () => act(() => new Promise((resolve) => setTimeout(resolve, 10)));

describe('lazyTooltip', () => {
  it('renders the child as MUI does, named or described by the title, and loads nothing before the first input', () => {
    const { LazyTooltip, loader } = deferred();
    render(
      <>
        <LazyTooltip title="Refresh">
          <button type="button">R</button>
        </LazyTooltip>
        <LazyTooltip title="Why not" describeChild>
          <span>wrapped</span>
        </LazyTooltip>
      </>,
    );
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
    expect(screen.getByText('wrapped')).toHaveAttribute('title', 'Why not');
    expect(loader).not.toHaveBeenCalled();
  });

  it("loads MUI's Tooltip at the first input; the focused child keeps the focus and shows its tooltip on hover", async () => {
    const { LazyTooltip, loader, arrive } = deferred();
    render(
      <LazyTooltip title="Refresh">
        <button type="button">R</button>
      </LazyTooltip>,
    );
    screen.getByRole('button').focus();
    fireEvent.keyDown(window, { key: 'Tab' });
    expect(loader).toHaveBeenCalledTimes(1);
    fireEvent.keyDown(window, { key: 'Tab' });
    expect(loader).toHaveBeenCalledTimes(1);
    await arrive();
    // MUI's Tooltip mounted the button anew: the new one has the focus and the same name
    const button = screen.getByRole('button', { name: 'Refresh' });
    expect(button).toHaveFocus();
    fireEvent.mouseOver(button);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Refresh');
  });

  it('a child pressed when MUI arrives stays the same node until released: the click lands, then the swap', async () => {
    const { arrive, clicked, pressed } = switchButton();
    fireEvent.pointerDown(pressed);
    await arrive();
    // not mounted anew while held: the release and the click reach the node that was pressed
    expect(screen.getByRole('button', { name: 'Switch' })).toBe(pressed);
    fireEvent.pointerUp(pressed);
    fireEvent.click(pressed);
    expect(clicked).toHaveBeenCalledTimes(1);
    await settle();
    const now = screen.getByRole('button', { name: 'Switch' });
    expect(now).not.toBe(pressed);
    fireEvent.mouseOver(now);
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Switch');
  });

  it('a press just after MUI arrived, before the swap is made, is released on the node pressed', async () => {
    const { arrive, clicked, pressed } = switchButton();
    // the pointer comes over the button (the first input), MUI arrives, then the press
    fireEvent.pointerOver(pressed);
    await arrive();
    // the swap waits for a task of its own, which sees the press and waits for the release
    fireEvent.pointerDown(pressed);
    await settle();
    expect(screen.getByRole('button', { name: 'Switch' })).toBe(pressed);
    fireEvent.pointerUp(pressed);
    fireEvent.click(pressed);
    expect(clicked).toHaveBeenCalledTimes(1);
    await settle();
    expect(screen.getByRole('button', { name: 'Switch' })).not.toBe(pressed);
  });

  it('a controlled open tooltip loads at once', async () => {
    const { LazyTooltip, loader, arrive } = deferred();
    render(
      <LazyTooltip title="Shown" open>
        <button type="button">R</button>
      </LazyTooltip>,
    );
    expect(loader).toHaveBeenCalledTimes(1);
    await arrive();
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Shown');
  });
});

describe('lazyTooltip and a menu', () => {
  it('a child anchoring an open menu keeps its node until the menu has closed', async () => {
    const { LazyTooltip, arrive } = deferred();
    const { rerender } = render(
      <LazyTooltip title="Profile">
        <button type="button" aria-owns="menu">
          P
        </button>
      </LazyTooltip>,
    );
    const anchor = screen.getByRole('button', { name: 'Profile' });
    fireEvent.pointerDown(window);
    await arrive();
    expect(screen.getByRole('button', { name: 'Profile' })).toBe(anchor);
    vi.useFakeTimers();
    try {
      rerender(
        <LazyTooltip title="Profile">
          <button type="button">P</button>
        </LazyTooltip>,
      );
      expect(screen.getByRole('button', { name: 'Profile' })).toBe(anchor);
      await act(async () => vi.advanceTimersByTime(600));
    } finally {
      vi.useRealTimers();
    }
    expect(screen.getByRole('button', { name: 'Profile' })).not.toBe(anchor);
  });
});
