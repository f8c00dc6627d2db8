// The form editor's fields for hot_text: the text with {{id}} where each phrase goes, each hotspot's phrase
// and whether it is correct, Add hotspot (placed at the text's cursor, else at its end) and the most phrases
// a candidate may choose.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el, field = K.field, checkField = K.checkField, bind = K.bind, input = K.input, textarea = K.textarea, button = K.button;

  function fields(q, path, ui) {
    var text = bind(textarea(path + '.text', 4), q, 'text', 'text', ui.changed);
    var hotspots = q.hotspots || (q.hotspots = []);
    q.correct = q.correct || [];
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.hotspots' });
    hotspots.forEach(function (h, k) {
      var n = k + 1, base = path + '.hotspots.' + k;
      var box = el('input', { type: 'checkbox', 'data-path': path + '.correct' });
      box.checked = q.correct.indexOf(h.id) >= 0;
      box.addEventListener('change', function () {
        var ids = q.correct.filter(function (id) { return id !== h.id; });
        if (box.checked) ids.push(h.id);
        // The key in the hotspots' order, as the server keeps answers.
        q.correct = hotspots.map(function (x) { return x.id; }).filter(function (id) { return ids.indexOf(id) >= 0; });
        ui.changed();
      });
      wrap.appendChild(el('div', { className: 'entry' }, [
        el('p', { className: 'blank-name' }, [t('portal.editor.hotText.hotspot', { n: n }), el('code', { text: '{{' + h.id + '}}' })]),
        field(t('portal.editor.hotText.phrase', { n: n }), bind(input(base + '.phrase'), h, 'phrase', 'text', ui.changed)),
        checkField(t('portal.editor.hotText.correct', { n: n }), box),
        el('div', { className: 'entry-actions' }, [button(t('portal.editor.remove'), function () {
          hotspots.splice(k, 1);
          q.correct = q.correct.filter(function (id) { return id !== h.id; });
          q.text = (q.text || '').split('{{' + h.id + '}}').join('');
          ui.structure(hotspots.length ? path + '.hotspots.' + Math.max(0, k - 1) + '.phrase' : path + '.add-hotspot');
        }, { sr: K.srAfterSpace(t('portal.editor.hotText.hotspotName', { n: n })) })]),
      ]));
    });
    wrap.appendChild(button(t('portal.editor.hotText.add'), function () {
      var id = K.freshId(hotspots, 'h');
      // The text's cursor as it left it: pressing the button has moved the focus to the button, and a text
      // drawn afresh has its cursor at the end.
      var current = q.text || '';
      var at = typeof text.selectionStart === 'number' ? Math.min(text.selectionStart, current.length) : current.length;
      q.text = current.slice(0, at) + '{{' + id + '}}' + current.slice(at);
      hotspots.push({ id: id, phrase: '' });
      ui.structure(path + '.hotspots.' + (hotspots.length - 1) + '.phrase');
    }, { focus: path + '.add-hotspot' }));
    return [
      field(t('portal.editor.hotText.text'), text, t('portal.editor.hotText.textHint')),
      wrap,
      field(t('portal.editor.hotText.maxChoices'), bind(input(path + '.maxChoices', { inputmode: 'numeric' }), q, 'maxChoices', 'number', ui.changed),
        t('portal.editor.hotText.maxChoicesHint')),
    ];
  }

  window.AssayEditorTypes.register('hot_text', {
    label: t('portal.editor.type.hotText'),
    defaults: function () { return { text: '', hotspots: [], correct: [] }; },
    fields: fields,
  });
})();
