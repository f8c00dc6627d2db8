// The form editor's fields for graphic_order: the image kit of hotspot's editor.js (AssayImageRegionsEditor, read
// when the form is drawn, so the bundle's order does not matter), the regions in the correct order with Move up /
// Move down, and Partial credit.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  window.AssayEditorTypes.register('graphic_order', {
    label: 'Graphic order',
    defaults: function () {
      return { image: '', imageAlt: '', regions: [{ id: 'r1', label: '', shape: 'rect', coords: [] }, { id: 'r2', label: '', shape: 'rect', coords: [] }] };
    },
    fields: function (q, path, ui) {
      var R = window.AssayImageRegionsEditor;
      return R.imageFields(q, path, ui).concat(R.regionList(q, path, ui, { ordered: true }), [
        K.el('p', { className: 'hint', text: 'List the regions in the correct order; each candidate sees them shuffled.' }),
        K.checkField('Partial credit for each region in place', K.bind(K.el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed)),
      ]);
    },
  });
})();
