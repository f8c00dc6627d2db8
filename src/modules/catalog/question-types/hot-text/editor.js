// The form editor's fields for hot_text: the text with {{id}} where each phrase goes, each hotspot's phrase
// and whether it is correct, Add hotspot (placed at the text's cursor, else at its end) and the most phrases
// a candidate may choose.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
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
        el('p', { className: 'blank-name' }, ['Hotspot ' + n + ': ', el('code', { text: '{{' + h.id + '}}' })]),
        field('Hotspot ' + n + ' phrase', bind(input(base + '.phrase'), h, 'phrase', 'text', ui.changed)),
        checkField('Hotspot ' + n + ' is correct', box),
        el('div', { className: 'entry-actions' }, [button('Remove', function () {
          hotspots.splice(k, 1);
          q.correct = q.correct.filter(function (id) { return id !== h.id; });
          q.text = (q.text || '').split('{{' + h.id + '}}').join('');
          ui.structure(hotspots.length ? path + '.hotspots.' + Math.max(0, k - 1) + '.phrase' : path + '.add-hotspot');
        }, { sr: ' hotspot ' + n })]),
      ]));
    });
    wrap.appendChild(button('Add hotspot', function () {
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
      field('Text with hotspots', text, 'Each hotspot is written {{id}} where its phrase goes; Add hotspot puts a new one at the cursor, or at the end of the text.'),
      wrap,
      field('Most phrases to choose', bind(input(path + '.maxChoices', { inputmode: 'numeric' }), q, 'maxChoices', 'number', ui.changed),
        'Optional; at least the number of correct phrases. Empty: any number. One correct phrase is all or nothing; several give partial credit.'),
    ];
  }

  window.AssayEditorTypes.register('hot_text', {
    label: 'Hot text',
    defaults: function () { return { text: '', hotspots: [], correct: [] }; },
    fields: fields,
  });
})();
