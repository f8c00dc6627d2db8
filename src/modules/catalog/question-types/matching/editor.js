// The matching question in the form editor: its stems (each with "Correct choice for stem N"), its choices, and
// Partial credit for each stem matched. Removing a choice clears the stems it was correct for.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  window.AssayEditorTypes.register('matching', {
    label: t('portal.editor.type.matching'),
    defaults: function () { return { stems: [{ id: 's1', text: '' }], choices: [{ id: 'c1', text: '' }, { id: 'c2', text: '' }], correct: {} }; },
    fields: function (q, path, ui) {
      q.correct = q.correct || {};
      var stems = K.entryList({
        owner: q, key: 'stems', path: path + '.stems', idPrefix: 's', label: function (n) { return t('portal.editor.matching.stem', { n: n }); }, srName: function (n) { return t('portal.editor.matching.stemName', { n: n }); }, addLabel: t('portal.editor.matching.addStem'), addFocus: path + '.add-stem',
        extra: function (row, stem, k, n) {
          var options = [['', t('portal.editor.matching.chooseChoice')]].concat((q.choices || []).map(function (c, j) { return [c.id, c.text || t('portal.editor.matching.choice', { n: j + 1 })]; }));
          var s = K.select(path + '.correct.' + stem.id, options, q.correct[stem.id] || '');
          s.addEventListener('change', function () { if (s.value) q.correct[stem.id] = s.value; else delete q.correct[stem.id]; ui.changed(); });
          row.appendChild(K.field(t('portal.editor.matching.correct', { n: n }), s));
        },
        onRemove: function (stem) { delete q.correct[stem.id]; },
      }, ui);
      var choices = K.entryList({
        owner: q, key: 'choices', path: path + '.choices', idPrefix: 'c', label: function (n) { return t('portal.editor.matching.choice', { n: n }); }, srName: function (n) { return t('portal.editor.matching.choiceName', { n: n }); }, addLabel: t('portal.editor.matching.addChoice'), addFocus: path + '.add-choice',
        onRemove: function (choice) { for (var s in q.correct) if (q.correct[s] === choice.id) delete q.correct[s]; },
      }, ui);
      return [K.el('h3', { text: t('portal.editor.matching.stems') }), stems, K.el('h3', { text: t('portal.editor.matching.choices') }), choices,
        K.checkField(t('portal.editor.matching.partialCredit'), K.bind(K.el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed))];
    },
  });
})();
