// Passkeys in the portal: "Sign in with a passkey" on the sign-in page and
// "Add a passkey" on the account page. Without this script (or without
// WebAuthn in the browser) both stay hidden and the emailed link still works.
(function () {
  'use strict';

  function toBuffer(b64url) {
    var b64 = b64url.replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) b64 += '=';
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes.buffer;
  }

  function toB64url(buffer) {
    var bytes = new Uint8Array(buffer);
    var bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function post(url, csrf, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body || {}),
    }).then(function (res) {
      return res.json().then(function (data) {
        if (!res.ok) throw new Error((data && data.error && data.error.message) || 'The request failed.');
        return data;
      });
    });
  }

  function credentialJson(cred) {
    var r = cred.response;
    var response = { clientDataJSON: toB64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toB64url(r.attestationObject);
      response.transports = typeof r.getTransports === 'function' ? r.getTransports() : [];
    } else {
      response.authenticatorData = toB64url(r.authenticatorData);
      response.signature = toB64url(r.signature);
      if (r.userHandle) response.userHandle = toB64url(r.userHandle);
    }
    return {
      id: cred.id,
      rawId: toB64url(cred.rawId),
      type: cred.type,
      response: response,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
    };
  }

  function say(section, text) {
    var status = section.querySelector('[data-passkey-status]');
    if (status) status.textContent = text;
  }

  function signIn(section) {
    var csrf = section.getAttribute('data-csrf');
    say(section, 'Waiting for your passkey…');
    post('/portal/sign-in/passkey/options', csrf)
      .then(function (options) {
        options.challenge = toBuffer(options.challenge);
        options.allowCredentials = (options.allowCredentials || []).map(function (c) {
          return { id: toBuffer(c.id), type: c.type, transports: c.transports };
        });
        return navigator.credentials.get({ publicKey: options });
      })
      .then(function (cred) {
        return post('/portal/sign-in/passkey', csrf, { response: credentialJson(cred), next: section.getAttribute('data-next') || undefined });
      })
      .then(function (result) {
        say(section, 'Signed in. Opening the portal…');
        window.location.assign(result.redirect);
      })
      .catch(function (err) {
        say(section, 'Sign-in with a passkey did not work: ' + (err && err.message ? err.message : 'cancelled') + ' You can use the emailed link instead.');
      });
  }

  function register(section, form) {
    var csrf = section.getAttribute('data-csrf');
    var name = form.querySelector('input[name="passkey-name"]').value;
    say(section, 'Follow your browser’s prompts to create the passkey…');
    post('/portal/account/passkeys/options', csrf)
      .then(function (options) {
        options.challenge = toBuffer(options.challenge);
        options.user.id = toBuffer(options.user.id);
        options.excludeCredentials = (options.excludeCredentials || []).map(function (c) {
          return { id: toBuffer(c.id), type: c.type, transports: c.transports };
        });
        return navigator.credentials.create({ publicKey: options });
      })
      .then(function (cred) {
        return post('/portal/account/passkeys', csrf, { name: name, response: credentialJson(cred) });
      })
      .then(function () {
        window.location.assign('/portal/account?done=passkey-added');
      })
      .catch(function (err) {
        say(section, 'The passkey was not added: ' + (err && err.message ? err.message : 'cancelled'));
      });
  }

  document.addEventListener('DOMContentLoaded', function () {
    if (!window.PublicKeyCredential || !navigator.credentials) return;
    var unsupported = document.querySelector('[data-passkey-unsupported]');
    if (unsupported) unsupported.hidden = true;
    var signInSection = document.querySelector('[data-passkey-sign-in]');
    if (signInSection) {
      signInSection.hidden = false;
      signInSection.querySelector('[data-passkey-action="sign-in"]').addEventListener('click', function () { signIn(signInSection); });
    }
    var registerSection = document.querySelector('[data-passkey-register]');
    if (registerSection) {
      registerSection.hidden = false;
      var form = registerSection.querySelector('[data-passkey-form]');
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        register(registerSection, form);
      });
    }
  });
})();
