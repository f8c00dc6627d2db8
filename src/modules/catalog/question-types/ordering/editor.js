// The ordering question in the form editor: its items in the correct order (each movable, as candidates see them
// shuffled) and Partial credit for each item in place.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  window.AssayEditorTypes.register('ordering', {
    label: 'Ordering',
    defaults: function () { return { items: [{ id: 'i1', text: '' }, { id: 'i2', text: '' }] }; },
    fields: function (q, path, ui) {
      return [K.entryList({ owner: q, key: 'items', path: path + '.items', idPrefix: 'i', ordered: true, label: function (n) { return 'Item ' + n; }, addLabel: 'Add item', addFocus: path + '.add-item' }, ui),
        K.el('p', { className: 'hint', text: 'List the items in the correct order; each candidate sees them shuffled.' }),
        K.checkField('Partial credit for each item in place', K.bind(K.el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed))];
    },
  });
})();
