// The test editor page (docs/authoring.md "Writing a test in the portal"):
// the form or the JSON view over one draft, saved a second after typing
// stops (and kept in this browser until the server has it), the problems
// shown next to their fields, another editor's save shown rather than
// overwritten, Publish version, the versions' changes, the preview.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var el = K.el;
  var data = JSON.parse(document.getElementById('editor-data').textContent);
  var form = document.getElementById('test-editor');
  var statusLine = document.getElementById('editor-status');
  var alertBox = document.getElementById('editor-alert');
  var summaryBox = document.getElementById('editor-summary');
  var jsonView = document.getElementById('json-view');
  var jsonText = document.getElementById('json-text');
  var jsonError = document.getElementById('json-text-error');
  var jsonToggle = document.getElementById('json-toggle');
  var frame = document.getElementById('preview-frame');
  var base = '/portal/authoring/tests/' + encodeURIComponent(data.testId);
  var localKey = 'assay-draft:' + data.testId;

  var state = { content: data.content, revision: data.revision, problems: data.problems, dirty: false, saving: false, again: false, timer: null, retry: 1000, conflict: false };

  function say(text) { statusLine.textContent = text; }
  function clock(d) { return new Date(d).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }); }

  function api(method, url, body, type) {
    var headers = { accept: 'application/json' };
    if (method !== 'GET') headers['x-csrf-token'] = data.csrf;
    if (body !== undefined) headers['content-type'] = type || 'application/json';
    return fetch(url, { method: method, headers: headers, credentials: 'same-origin', body: body === undefined ? undefined : type ? body : JSON.stringify(body) })
      .then(function (res) { return res.text().then(function (t) { var j = null; try { j = t ? JSON.parse(t) : null; } catch (e) { j = null; } return { status: res.status, body: j }; }); });
  }

  // ---- the form and where the focus goes after a change of structure
  var ui = {
    changed: function () { changed(); },
    structure: function (focus) { changed(); render(focus); },
    say: say,
    imageControl: imageControl,
    // A parametrised question's sample draws, made by the server's evaluator (editor-parameters.js).
    sampleDraws: function (question) { return api('POST', base + '/draft/sample-draws', { question: question }); },
  };

  function render(focus) {
    window.AssayEditorForm.render(form, state.content, ui);
    showProblems(state.problems, false);
    if (focus) {
      var target = form.querySelector('[data-path="' + focus + '"]:not(fieldset):not(section):not(div)') || form.querySelector('[data-focus="' + focus + '"]');
      if (target) target.focus();
    }
  }

  // ---- saving
  function keepLocally() {
    try { localStorage.setItem(localKey, JSON.stringify({ base: state.revision, content: state.content, at: Date.now() })); } catch (e) { /* storage full or off: the server copy still follows */ }
  }
  function forgetLocal() { try { localStorage.removeItem(localKey); } catch (e) { /* nothing kept */ } }

  function changed() {
    state.dirty = true;
    keepLocally();
    say('Unsaved changes…');
    clearTimeout(state.timer);
    state.timer = setTimeout(save, 1000);
  }

  function save() {
    clearTimeout(state.timer);
    if (state.conflict) return Promise.resolve(false);
    if (state.saving) { state.again = true; return state.saving; }
    var sent = JSON.stringify(state.content);
    say('Saving…');
    state.saving = api('PUT', base + '/draft', { revision: state.revision, content: state.content }).then(function (r) {
      state.saving = false;
      if (r.status === 200) {
        state.retry = 1000;
        state.revision = r.body.revision;
        state.problems = r.body.problems;
        if (JSON.stringify(state.content) === sent) { state.dirty = false; forgetLocal(); } else keepLocally();
        say('Saved at ' + clock(r.body.updatedAt || Date.now()) + ' (revision ' + state.revision + ')' + (state.problems.length ? '; ' + plural(state.problems.length, 'problem') + ' to fix before publishing.' : '; ready to publish.'));
        showProblems(state.problems, false);
        refreshPreview();
        if (state.again || state.dirty) { state.again = false; if (state.dirty) return save(); }
        return true;
      }
      if (r.status === 409) { conflict(r.body); return false; }
      if (r.status === 401 || r.status === 403) { say('Not saved: you are signed out. Your changes are kept in this browser; sign in again in another tab, then press Save draft.'); return false; }
      var message = r.body && r.body.error ? r.body.error.message : 'the server answered ' + r.status + '.';
      if (r.status === 400 && r.body && r.body.error && r.body.error.details) {
        // Content over a bound (a formula too long or too large): refused before it is written, shown at its field.
        keepLocally();
        state.problems = r.body.error.details;
        say('Not saved: ' + message + ' Your changes are kept in this browser until you fix it.');
        showProblems(state.problems, true);
        return false;
      }
      say('Not saved: ' + message);
      return false;
    }, function () {
      state.saving = false;
      say('Not saved: the connection was lost. Your changes are kept in this browser; trying again…');
      state.timer = setTimeout(save, state.retry);
      state.retry = Math.min(state.retry * 2, 30000);
      return false;
    });
    return state.saving;
  }

  function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }

  // ---- another editor saved first: say so, and let the person choose
  function conflict(body) {
    state.conflict = true;
    var message = body && body.error ? body.error.message : 'Someone else saved this draft.';
    say('Not saved: someone else changed this draft.');
    alertBox.textContent = '';
    var box = el('div', { className: 'notice warning editor-conflict', role: 'alert' }, [
      el('h2', { text: 'Another editor saved this draft' }),
      el('p', { text: message }),
      el('p', { text: 'Your changes are not saved and are kept in this browser. Load their version (yours are dropped), or keep yours and save it over theirs.' }),
      el('div', { className: 'entry-actions' }, [
        K.button('Load their version', function () { resolve(false); }, { variant: 'secondary' }),
        K.button('Keep my version', function () { resolve(true); }, { variant: 'primary' }),
      ]),
    ]);
    alertBox.appendChild(box);
  }

  function resolve(keepMine) {
    api('GET', base + '/draft').then(function (r) {
      if (r.status !== 200) { say('Could not load the draft (' + r.status + ').'); return; }
      state.conflict = false;
      alertBox.textContent = '';
      state.revision = r.body.revision;
      if (keepMine) { save(); return; }
      state.content = r.body.content;
      state.problems = r.body.problems;
      state.dirty = false;
      forgetLocal();
      render('title');
      refreshPreview();
      say('Loaded revision ' + state.revision + ', saved by ' + (r.body.updatedBy || 'another editor') + '.');
    });
  }

  // ---- problems next to their fields, and the list above the form
  function controlFor(path) {
    var parts = path.split('.');
    while (parts.length) {
      var found = form.querySelector('[data-path="' + parts.join('.') + '"]');
      if (found) return found;
      parts.pop();
    }
    return form.querySelector('[data-path="title"]');
  }

  function showProblems(problems, announce) {
    Array.prototype.forEach.call(form.querySelectorAll('.field-error.generated'), function (n) { n.remove(); });
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), function (n) {
      n.removeAttribute('aria-invalid');
      var d = (n.getAttribute('aria-describedby') || '').split(' ').filter(function (x) { return x.indexOf('err-') !== 0; }).join(' ');
      if (d) n.setAttribute('aria-describedby', d); else n.removeAttribute('aria-describedby');
    });
    summaryBox.textContent = '';
    if (!problems || !problems.length) return;
    var items = el('ul');
    problems.forEach(function (p, i) {
      var control = controlFor(p.field);
      var id = 'err-' + i;
      var focusable = control && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(control.tagName) ? control : control && control.querySelector('input, select, textarea, button');
      var text = describe(p, focusable);
      var note = el('p', { className: 'field-error generated', id: id, text: text });
      if (focusable) {
        if (!focusable.id) focusable.id = K.nextId('f');
        focusable.setAttribute('aria-invalid', 'true');
        focusable.setAttribute('aria-describedby', ((focusable.getAttribute('aria-describedby') || '') + ' ' + id).trim());
        var holder = focusable.closest('.field') || focusable.parentNode;
        holder.appendChild(note);
      } else if (control) control.appendChild(note);
      items.appendChild(el('li', null, [el('a', { href: '#' + (focusable ? focusable.id : ''), onclick: function (e) { e.preventDefault(); if (focusable) focusable.focus(); } , text: text })]));
    });
    var box = el('div', { className: 'error-summary', id: 'problem-summary', tabindex: '-1', role: announce ? 'alert' : null }, [
      el('h2', { text: plural(problems.length, 'problem') + ' to fix before publishing' }), items,
    ]);
    summaryBox.appendChild(box);
    if (announce) box.focus();
  }

  // "Question 2, Points: must be greater than 0": the field's label, then the server's words.
  function describe(p, control) {
    var label = control && control.labels && control.labels[0] ? control.labels[0].textContent : p.field;
    var group = control && control.closest('fieldset.editor-question');
    var where = group ? group.querySelector('legend').textContent.replace(/ \(.*\)$/, '') + ', ' : '';
    return where + label + ': ' + p.message;
  }

  // ---- images in a prompt: upload, then ![alt](asset:…) at the cursor
  function imageControl(target, obj, key, name) {
    var file = el('input', { type: 'file', accept: 'image/png,image/jpeg,image/gif,image/webp,image/svg+xml' });
    var alt = el('input', { type: 'text' });
    var note = el('p', { className: 'hint', role: 'status' });
    var panel = el('div', { className: 'image-panel', hidden: true }, [
      K.field('Image file', file, 'PNG, JPEG, GIF, WebP or SVG, at most 5 MB.'),
      K.field('Alt text', alt, 'Required: what a screen reader says, describing what the question needs from the image.'),
      K.button('Upload image', function () {
        if (!file.files || !file.files[0]) { note.textContent = 'Choose an image file first.'; file.focus(); return; }
        if (!alt.value.trim()) { note.textContent = 'Write the alt text first: images without it are not shown.'; alt.focus(); return; }
        note.textContent = 'Uploading…';
        var f = file.files[0];
        api('POST', '/portal/authoring/assets', f, f.type || 'application/octet-stream').then(function (r) {
          if (r.status !== 201) { note.textContent = 'Not uploaded: ' + (r.body && r.body.error ? r.body.error.message : 'the server answered ' + r.status + '.'); return; }
          var md = '![' + alt.value.trim().replace(/[\[\]]/g, '') + '](asset:' + r.body.assetId + ')';
          var at = typeof target.selectionStart === 'number' ? target.selectionEnd : target.value.length;
          target.value = target.value.slice(0, at) + md + target.value.slice(at);
          obj[key] = target.value;
          changed();
          note.textContent = 'Image added to the prompt.';
          file.value = ''; alt.value = '';
          target.focus();
        }, function () { note.textContent = 'Not uploaded: the connection was lost.'; });
      }, { variant: 'primary' }),
      note,
    ]);
    var toggle = K.button('Add image', function () {
      panel.hidden = !panel.hidden;
      toggle.setAttribute('aria-expanded', String(!panel.hidden));
      if (!panel.hidden) file.focus();
    }, { sr: ' to ' + name });
    toggle.setAttribute('aria-expanded', 'false');
    return el('div', { className: 'image-control' }, [toggle, panel]);
  }

  // ---- preview
  function refreshPreview() { if (frame) frame.src = '/portal/tests/' + encodeURIComponent(data.testId) + '/draft/preview?revision=' + state.revision; }
  var widthToggle = document.getElementById('preview-width');
  widthToggle.addEventListener('click', function () {
    var phone = widthToggle.getAttribute('aria-pressed') !== 'true';
    widthToggle.setAttribute('aria-pressed', String(phone));
    document.getElementById('preview-box').classList.toggle('phone', phone);
  });

  // ---- JSON view
  jsonToggle.addEventListener('click', function () {
    var on = jsonToggle.getAttribute('aria-pressed') !== 'true';
    jsonToggle.setAttribute('aria-pressed', String(on));
    form.hidden = on;
    jsonView.hidden = !on;
    if (on) { jsonText.value = JSON.stringify(state.content, null, 2); jsonText.focus(); } else render('title');
  });
  jsonText.addEventListener('input', function () {
    try {
      var parsed = JSON.parse(jsonText.value);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('The test must be a JSON object ({ … }).');
      jsonError.hidden = true; jsonText.removeAttribute('aria-invalid');
      state.content = parsed;
      changed();
    } catch (e) {
      var m = /position (\d+)/.exec(e.message);
      var line = m ? jsonText.value.slice(0, Number(m[1])).split('\n').length : null;
      jsonError.textContent = (line ? 'Line ' + line + ': ' : '') + 'not valid JSON yet (' + e.message + '). Nothing is saved until it is.';
      jsonError.hidden = false; jsonText.setAttribute('aria-invalid', 'true');
    }
  });

  // ---- buttons
  document.getElementById('save-draft').addEventListener('click', function () { save(); });
  document.getElementById('publish-version').addEventListener('click', publish);
  document.getElementById('delete-test').addEventListener('click', function () {
    if (!window.confirm('Delete this test? It leaves every list and cannot be assigned; assignments already made keep working.')) return;
    api('DELETE', '/portal/authoring/tests/' + encodeURIComponent(data.testId)).then(function (r) {
      if (r.status === 204) { forgetLocal(); window.location.href = '/portal/tests?done=test-deleted'; } else say('Not deleted: ' + (r.body && r.body.error ? r.body.error.message : r.status));
    });
  });

  function publish() {
    var ready = state.dirty || state.saving ? Promise.resolve(save()) : Promise.resolve(true);
    ready.then(function (ok) {
      if (ok === false || state.dirty) return;
      if (state.problems.length) { say('Not published: fix the problems listed first.'); showProblems(state.problems, true); return; }
      say('Publishing…');
      api('POST', base + '/versions', { revision: state.revision }).then(function (r) {
        if (r.status === 201) {
          state.revision = r.body.revision;
          say('Version ' + r.body.version + ' published. Partners can assign it now; you can go on editing the draft.');
          addVersion(r.body.version);
          api('GET', base + '/draft').then(function (d) { if (d.status === 200 && !state.dirty) { state.content = d.body.content; state.revision = d.body.revision; state.problems = d.body.problems; render(); } });
        } else if (r.status === 400) {
          state.problems = (r.body.error && r.body.error.details) || [];
          say('Not published: fix the problems listed first.');
          showProblems(state.problems, true);
        } else if (r.status === 409) conflict(r.body);
        else say('Not published: ' + (r.body && r.body.error ? r.body.error.message : r.status));
      });
    });
  }

  // ---- versions and what each changed
  var CHANGE = {
    test_changed: function (c) { return 'Test settings changed: ' + c.fields.join(', ') + '.'; },
    section_added: function (c) { return 'Section added: ' + (c.title || c.sectionId) + '.'; },
    section_removed: function (c) { return 'Section removed: ' + (c.title || c.sectionId) + '.'; },
    section_renamed: function (c) { return 'Section renamed from "' + c.from + '" to "' + c.to + '".'; },
    section_changed: function (c) { return 'Section ' + c.sectionId + ' changed: ' + c.fields.join(', ') + '.'; },
    question_added: function (c) { return 'Question ' + c.questionId + ' added.'; },
    question_removed: function (c) { return 'Question ' + c.questionId + ' removed.'; },
    question_moved: function (c) { return 'Question ' + c.questionId + ' moved from section ' + c.from + ' to ' + c.to + '.'; },
    question_changed: function (c) { return 'Question ' + c.questionId + ' changed: ' + c.fields.join(', ') + '.'; },
  };
  function watchVersion(details) {
    details.addEventListener('toggle', function () {
      var out = details.querySelector('.version-changes');
      if (!details.open || out.getAttribute('data-loaded')) return;
      out.textContent = 'Loading…';
      api('GET', base + '/versions/' + details.getAttribute('data-version') + '/diff').then(function (r) {
        out.textContent = '';
        if (r.status !== 200) { out.textContent = 'The changes could not be loaded (' + r.status + ').'; return; }
        out.setAttribute('data-loaded', '1');
        var intro = r.body.previous ? 'Changes from version ' + r.body.previous + ':' : 'The first version: everything was added.';
        out.appendChild(el('p', { text: intro }));
        if (r.body.previous && !r.body.changes.length) out.appendChild(el('p', { text: 'No changes.' }));
        else if (r.body.previous) out.appendChild(el('ul', null, r.body.changes.map(function (c) { return el('li', { text: (CHANGE[c.kind] || function () { return c.kind; })(c) }); })));
      });
    });
  }
  function addVersion(version) {
    var list = document.getElementById('version-list');
    if (!list) {
      var empty = document.getElementById('versions-empty');
      list = el('ul', { className: 'version-list', id: 'version-list' });
      empty.parentNode.replaceChild(list, empty);
    }
    var details = el('details', { 'data-version': String(version) }, [el('summary', { text: 'Version ' + version + ': ' + (state.content.title || '') + ', just now' }), el('div', { className: 'version-changes', 'aria-live': 'polite', text: 'Open to see what changed.' })]);
    list.insertBefore(el('li', null, [details]), list.firstChild);
    watchVersion(details);
  }
  Array.prototype.forEach.call(document.querySelectorAll('details[data-version]'), watchVersion);

  window.addEventListener('beforeunload', function (e) { if (state.dirty) { e.preventDefault(); e.returnValue = ''; } });

  // ---- start: a copy this browser kept of changes never saved comes back
  var kept = null;
  try { kept = JSON.parse(localStorage.getItem(localKey) || 'null'); } catch (e) { kept = null; }
  if (kept && kept.content && JSON.stringify(kept.content) !== JSON.stringify(state.content)) {
    if (kept.base === state.revision) {
      state.content = kept.content;
      render();
      changed();
      say('Your unsaved changes from this browser were restored; saving them now.');
    } else {
      render();
      alertBox.appendChild(el('div', { className: 'notice warning', role: 'alert' }, [
        el('p', { text: 'This browser kept changes to revision ' + kept.base + ' that were never saved; the draft has since moved on to revision ' + state.revision + '.' }),
        el('div', { className: 'entry-actions' }, [
          K.button('Restore my unsaved changes', function () { alertBox.textContent = ''; state.content = kept.content; render('title'); changed(); }, { variant: 'primary' }),
          K.button('Discard them', function () { alertBox.textContent = ''; forgetLocal(); }, { variant: 'secondary' }),
        ]),
      ]));
    }
  } else {
    if (kept) forgetLocal();
    render();
  }
})();
