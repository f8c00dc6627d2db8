// The single choice question in the form editor: its options (each with "Option N is correct" as a radio button
// and "Keep option N in place when shuffling") and Shuffle the options.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  window.AssayEditorTypes.register('single_choice', {
    label: t('portal.editor.type.singleChoice'),
    defaults: function () { return { options: [{ id: 'a', text: '' }, { id: 'b', text: '' }] }; },
    fields: function (q, path, ui) {
      return [K.choiceOptions(q, path, ui, false),
        K.checkField(t('portal.editor.shuffleOptions'), K.bind(K.el('input', { type: 'checkbox', 'data-path': path + '.shuffleOptions' }), q, 'shuffleOptions', 'bool', ui.changed))];
    },
  });
})();
