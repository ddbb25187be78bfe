// The account page's and the sign-in step's passkey buttons (server/mfa/pages.ts): a same-origin
// file, since the pages allow no inline script. The button carries the server's options; the
// browser's answer is posted in the form's `webauthn` field and verified on the server.
(function () {
  var lib = window.SimpleWebAuthnBrowser;
  var buttons = document.querySelectorAll('button[data-webauthn]');
  var status = document.getElementById('webauthn-status');
  // the page's words (data-* of the status, server/mfa/pages.ts), English without them
  var say = function (name, english) {
    return (status && status.dataset[name]) || english;
  };
  if (!lib || !lib.browserSupportsWebAuthn()) {
    if (status) status.textContent = say('unsupported', 'This browser cannot use passkeys or security keys here.');
    return;
  }
  if (status) status.textContent = '';
  buttons.forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var optionsJSON = JSON.parse(button.getAttribute('data-options'));
      var register = button.getAttribute('data-webauthn') === 'register';
      button.disabled = true;
      if (status) status.textContent = register ? say('followRegister', 'Follow your browser to create the passkey…') : say('followUse', 'Follow your browser to use your passkey or key…');
      (register ? lib.startRegistration({ optionsJSON: optionsJSON }) : lib.startAuthentication({ optionsJSON: optionsJSON }))
        .then(function (answer) {
          button.form.elements.namedItem('webauthn').value = JSON.stringify(answer);
          button.form.submit();
        })
        .catch(function (error) {
          button.disabled = false;
          if (status) status.textContent = say('failed', 'The passkey was not used ({reason}). You can try again.').replace('{reason}', error && error.message ? error.message : say('cancelled', 'cancelled'));
        });
    });
  });
})();
