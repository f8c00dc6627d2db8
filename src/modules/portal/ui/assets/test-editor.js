// The test editor page (docs/authoring.md "Writing a test in the portal"):
// the form or the JSON view over one draft, saved a second after typing
// stops (and kept in this browser until the server has it), the problems
// shown next to their fields, another editor's save shown rather than
// overwritten, Publish version, the versions' changes, the preview.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
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
  // This tab's own id (editor-tab.js): the server never counts this tab's saves as conflicting with each other.
  var editorId = window.AssayEditorTab.id;

  var state = { content: data.content, revision: data.revision, problems: data.problems, dirty: false, saving: false, again: false, timer: null, retry: 1000, conflict: false };
  // The Translations panel (editor-translations.js), drawn at the end of the form and saved with it.
  var translations = window.AssayEditorTranslations ? window.AssayEditorTranslations.create({ data: data, changed: function () { changed(); } }) : null;

  function say(text) { statusLine.textContent = text; }
  function clock(d) { return window.AssayI18n.time(new Date(d), { hour: '2-digit' }); }

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
    if (translations) form.appendChild(translations.panel(state.content));
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
    say(t('portal.editor.save.unsaved'));
    clearTimeout(state.timer);
    state.timer = setTimeout(save, 1000);
  }

  function save() {
    clearTimeout(state.timer);
    if (state.conflict) return Promise.resolve(false);
    if (state.saving) { state.again = true; return state.saving; }
    if (translations) translations.prepare(state.content);
    var sent = JSON.stringify(state.content);
    say(t('portal.editor.save.saving'));
    state.saving = api('PUT', base + '/draft', { revision: state.revision, content: state.content, editorId: editorId }).then(function (r) {
      state.saving = false;
      if (r.status === 200) {
        state.retry = 1000;
        state.revision = r.body.revision;
        state.problems = r.body.problems;
        if (translations) translations.saved(r.body);
        if (JSON.stringify(state.content) === sent) { state.dirty = false; forgetLocal(); } else keepLocally();
        say(t('portal.editor.save.saved', { time: clock(r.body.updatedAt || Date.now()), revision: state.revision, problems: state.problems.length }));
        showProblems(state.problems, false);
        refreshPreview();
        if (state.again || state.dirty) { state.again = false; if (state.dirty) return save(); }
        return true;
      }
      if (r.status === 409) { conflict(r.body); return false; }
      if (r.status === 401 || r.status === 403) { say(t('portal.editor.save.signedOut')); return false; }
      var message = r.body && r.body.error ? r.body.error.message : t('portal.editor.serverAnswered', { status: r.status });
      if (r.status === 503) {
        // Busy (a full worker pool): nothing was written; the changes are kept and sent again shortly.
        keepLocally();
        say(t('portal.editor.save.refused', { message: message }));
        state.timer = setTimeout(save, state.retry);
        state.retry = Math.min(state.retry * 2, 30000);
        return false;
      }
      if (r.status === 400 && r.body && r.body.error && r.body.error.details) {
        // Content over a bound (a formula too long or too large): refused before it is written, shown at its field.
        keepLocally();
        state.problems = r.body.error.details;
        say(t('portal.editor.save.refusedKept', { message: message }));
        showProblems(state.problems, true);
        return false;
      }
      say(t('portal.editor.save.refused', { message: message }));
      return false;
    }, function () {
      state.saving = false;
      say(t('portal.editor.save.offline'));
      state.timer = setTimeout(save, state.retry);
      state.retry = Math.min(state.retry * 2, 30000);
      return false;
    });
    return state.saving;
  }

  // ---- another editor saved first: say so, and let the person choose
  function conflict(body) {
    state.conflict = true;
    var message = body && body.error ? body.error.message : t('portal.editor.conflict.fallback');
    say(t('portal.editor.conflict.status'));
    alertBox.textContent = '';
    var box = el('div', { className: 'notice warning editor-conflict', role: 'alert' }, [
      el('h2', { text: t('portal.editor.conflict.heading') }),
      el('p', { text: message }),
      el('p', { text: t('portal.editor.conflict.choose') }),
      el('div', { className: 'entry-actions' }, [
        K.button(t('portal.editor.conflict.loadTheirs'), function () { resolve(false); }, { variant: 'secondary' }),
        K.button(t('portal.editor.conflict.keepMine'), function () { resolve(true); }, { variant: 'primary' }),
      ]),
    ]);
    alertBox.appendChild(box);
  }

  function resolve(keepMine) {
    api('GET', base + '/draft').then(function (r) {
      if (r.status !== 200) { say(t('portal.editor.conflict.loadFailed', { status: r.status })); return; }
      state.conflict = false;
      alertBox.textContent = '';
      state.revision = r.body.revision;
      if (keepMine) { save(); return; }
      state.content = r.body.content;
      state.problems = r.body.problems;
      state.dirty = false;
      forgetLocal();
      if (translations) translations.saved(r.body);
      render('title');
      refreshPreview();
      say(t('portal.editor.conflict.loaded', { revision: state.revision, by: r.body.updatedBy || t('portal.editor.conflict.anotherEditor') }));
    });
  }

  // ---- problems next to their fields, in words, and the list above the form (editor-problems.js)
  function showProblems(problems, announce) { window.AssayEditorProblems.show(form, summaryBox, problems, announce); }

  // ---- images in a prompt: upload, then ![alt](asset:…) at the cursor
  function imageControl(target, obj, key, name) {
    var file = el('input', { type: 'file', accept: 'image/png,image/jpeg,image/gif,image/webp,image/svg+xml' });
    var alt = el('input', { type: 'text' });
    var note = el('p', { className: 'hint', role: 'status' });
    var panel = el('div', { className: 'image-panel', hidden: true }, [
      K.field(t('portal.editor.image.file'), file, t('portal.editor.image.fileHint')),
      K.field(t('portal.editor.image.alt'), alt, t('portal.editor.image.altHint')),
      K.button(t('portal.editor.image.upload'), function () {
        if (!file.files || !file.files[0]) { note.textContent = t('portal.editor.image.chooseFirst'); file.focus(); return; }
        if (!alt.value.trim()) { note.textContent = t('portal.editor.image.altFirst'); alt.focus(); return; }
        note.textContent = t('portal.editor.image.uploading');
        var f = file.files[0];
        api('POST', '/portal/authoring/assets', f, f.type || 'application/octet-stream').then(function (r) {
          if (r.status !== 201) { note.textContent = t('portal.editor.image.notUploaded', { message: r.body && r.body.error ? r.body.error.message : t('portal.editor.serverAnswered', { status: r.status }) }); return; }
          var md = '![' + alt.value.trim().replace(/[\[\]]/g, '') + '](asset:' + r.body.assetId + ')';
          var at = typeof target.selectionStart === 'number' ? target.selectionEnd : target.value.length;
          target.value = target.value.slice(0, at) + md + target.value.slice(at);
          obj[key] = target.value;
          changed();
          note.textContent = t('portal.editor.image.added');
          file.value = ''; alt.value = '';
          target.focus();
        }, function () { note.textContent = t('portal.editor.image.offline'); });
      }, { variant: 'primary' }),
      note,
    ]);
    var toggle = K.button(t('portal.editor.image.add'), function () {
      panel.hidden = !panel.hidden;
      toggle.setAttribute('aria-expanded', String(!panel.hidden));
      if (!panel.hidden) file.focus();
    }, { sr: t('portal.editor.image.addSr', { name: name }) });
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
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(t('portal.editor.json.notObject'));
      jsonError.hidden = true; jsonText.removeAttribute('aria-invalid');
      state.content = parsed;
      changed();
    } catch (e) {
      var m = /position (\d+)/.exec(e.message);
      var line = m ? jsonText.value.slice(0, Number(m[1])).split('\n').length : null;
      jsonError.textContent = line ? t('portal.editor.json.invalidAtLine', { line: line, error: e.message }) : t('portal.editor.json.invalid', { error: e.message });
      jsonError.hidden = false; jsonText.setAttribute('aria-invalid', 'true');
    }
  });

  // ---- buttons
  document.getElementById('save-draft').addEventListener('click', function () { save(); });
  document.getElementById('publish-version').addEventListener('click', publish);
  document.getElementById('delete-test').addEventListener('click', function () {
    if (!window.confirm(t('portal.editor.deleteTest.confirm'))) return;
    api('DELETE', '/portal/authoring/tests/' + encodeURIComponent(data.testId)).then(function (r) {
      if (r.status === 204) { forgetLocal(); window.location.href = '/portal/tests?done=test-deleted'; } else say(t('portal.editor.deleteTest.refused', { message: r.body && r.body.error ? r.body.error.message : r.status }));
    });
  });

  function publish() {
    var ready = state.dirty || state.saving ? Promise.resolve(save()) : Promise.resolve(true);
    ready.then(function (ok) {
      if (ok === false || state.dirty) return;
      if (state.problems.length) { say(t('portal.editor.publish.problemsFirst')); showProblems(state.problems, true); return; }
      say(t('portal.editor.publish.publishing'));
      api('POST', base + '/versions', { revision: state.revision }).then(function (r) {
        if (r.status === 201) {
          state.revision = r.body.revision;
          say(t('portal.editor.publish.published', { version: r.body.version }));
          addVersion(r.body.version);
          api('GET', base + '/draft').then(function (d) { if (d.status === 200 && !state.dirty) { state.content = d.body.content; state.revision = d.body.revision; state.problems = d.body.problems; if (translations) translations.saved(d.body); render(); } });
        } else if (r.status === 400) {
          state.problems = (r.body.error && r.body.error.details) || [];
          say(t('portal.editor.publish.problemsFirst'));
          showProblems(state.problems, true);
        } else if (r.status === 409) conflict(r.body);
        else say(t('portal.editor.publish.refused', { message: r.body && r.body.error ? r.body.error.message : r.status }));
      });
    });
  }

  // ---- versions and what each changed (the server words each change, with its values before and after)
  function watchVersion(details) {
    details.addEventListener('toggle', function () {
      var out = details.querySelector('.version-changes');
      if (!details.open || out.getAttribute('data-loaded')) return;
      out.textContent = t('portal.editor.versions.loading');
      api('GET', base + '/versions/' + details.getAttribute('data-version') + '/diff').then(function (r) {
        out.textContent = '';
        if (r.status !== 200) { out.textContent = t('portal.editor.versions.loadFailed', { status: r.status }); return; }
        out.setAttribute('data-loaded', '1');
        var intro = r.body.previous ? t('portal.editor.versions.changesFrom', { version: r.body.previous }) : t('portal.editor.versions.first');
        out.appendChild(el('p', { text: intro }));
        if (r.body.previous && !r.body.changes.length) out.appendChild(el('p', { text: t('portal.editor.versions.noChanges') }));
        else if (r.body.previous) out.appendChild(el('ul', null, r.body.changes.map(function (c) { return el('li', { text: c.text }); })));
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
    var details = el('details', { 'data-version': String(version) }, [el('summary', { text: t('portal.editor.versions.justNow', { version: version, title: state.content.title || '' }) }), el('div', { className: 'version-changes', 'aria-live': 'polite', text: t('portal.editor.versions.openToSee') })]);
    list.insertBefore(el('li', null, [details]), list.firstChild);
    watchVersion(details);
  }
  Array.prototype.forEach.call(document.querySelectorAll('details[data-version]'), watchVersion);

  // Leaving or reloading with changes not yet saved: they go now, in a request that outlives the page (keepalive), and
  // the copy kept in this browser stays until a page sees them saved. No "leave the page?" question: nothing is lost.
  window.addEventListener('pagehide', function () {
    if (!state.dirty || state.conflict) return;
    clearTimeout(state.timer);
    if (translations) translations.prepare(state.content);
    try {
      fetch(base + '/draft', {
        method: 'PUT',
        keepalive: true,
        credentials: 'same-origin',
        headers: { accept: 'application/json', 'content-type': 'application/json', 'x-csrf-token': data.csrf },
        body: JSON.stringify({ revision: state.revision, content: state.content, editorId: editorId }),
      }).catch(function () { /* offline or over the browser's keepalive size: the kept copy comes back on the next visit */ });
    } catch (e) { /* the same */ }
  });


  // ---- start: a copy this browser kept of changes never saved comes back
  var kept = null;
  try { kept = JSON.parse(localStorage.getItem(localKey) || 'null'); } catch (e) { kept = null; }
  if (kept && kept.content && !window.AssayEditorTab.sameJson(kept.content, state.content)) {
    if (kept.base === state.revision) {
      state.content = kept.content;
      render();
      changed();
      say(t('portal.editor.restore.restored'));
    } else {
      render();
      alertBox.appendChild(el('div', { className: 'notice warning', role: 'alert' }, [
        el('p', { text: t('portal.editor.restore.outdated', { kept: kept.base, revision: state.revision }) }),
        el('div', { className: 'entry-actions' }, [
          K.button(t('portal.editor.restore.restore'), function () { alertBox.textContent = ''; state.content = kept.content; render('title'); changed(); }, { variant: 'primary' }),
          K.button(t('portal.editor.restore.discard'), function () { alertBox.textContent = ''; forgetLocal(); }, { variant: 'secondary' }),
        ]),
      ]));
    }
  } else {
    if (kept) forgetLocal();
    render();
  }

  // ---- the sticky bar never covers the focus (WCAG 2.4.11)
  // Where the bar sticks to the top (wide screens), a field the keyboard brings into view (Shift+Tab, a problem's
  // link) stops below the bar, however tall its status and actions make it now; on phones it scrolls away.
  var bar = document.querySelector('.editor-bar');
  function clearOfBar() {
    var sticky = getComputedStyle(bar).position === 'sticky';
    document.documentElement.style.scrollPaddingTop = sticky ? Math.ceil(bar.getBoundingClientRect().height) + 12 + 'px' : '';
  }
  if (bar && window.ResizeObserver) new ResizeObserver(clearOfBar).observe(bar);
})();
