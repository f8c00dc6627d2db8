// The ordering question in the form editor: its items in the correct order (each movable, as candidates see them
// shuffled) and Partial credit for each item in place.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  window.AssayEditorTypes.register('ordering', {
    label: t('portal.editor.type.ordering'),
    defaults: function () { return { items: [{ id: 'i1', text: '' }, { id: 'i2', text: '' }] }; },
    fields: function (q, path, ui) {
      return [K.entryList({ owner: q, key: 'items', path: path + '.items', idPrefix: 'i', ordered: true, label: function (n) { return t('portal.editor.ordering.item', { n: n }); }, srName: function (n) { return t('portal.editor.ordering.itemName', { n: n }); }, addLabel: t('portal.editor.ordering.add'), addFocus: path + '.add-item' }, ui),
        K.el('p', { className: 'hint', text: t('portal.editor.ordering.hint') }),
        K.checkField(t('portal.editor.ordering.partialCredit'), K.bind(K.el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed))];
    },
  });
})();
