// The account page's small helpers (served as /account/page.js, a same-origin script: the pages
// allow no inline script). Times are written in UTC by the server and shown here in the person's own
// time zone, written the way of the page's language; recovery codes get a Copy button.
(() => {
  for (const time of document.querySelectorAll('time[datetime]')) {
    const date = new Date(time.getAttribute('datetime'));
    if (!Number.isNaN(date.getTime())) time.textContent = date.toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const list = document.getElementById(button.getAttribute('data-copy'));
    const status = document.getElementById(`${button.getAttribute('data-copy')}-status`);
    if (!list || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      const codes = [...list.querySelectorAll('code')].map((code) => code.textContent).join('\n');
      try {
        await navigator.clipboard.writeText(codes);
        if (status) status.textContent = status.dataset.copied || 'Copied.';
      } catch {
        if (status) status.textContent = status.dataset.copyFailed || 'Your browser did not let this page copy: select the codes instead.';
      }
    });
  }
})();
