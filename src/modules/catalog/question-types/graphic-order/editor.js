// The form editor's fields for graphic_order: the image kit of hotspot's editor.js (AssayImageRegionsEditor, read
// when the form is drawn, so the bundle's order does not matter), the regions in the correct order with Move up /
// Move down, and Partial credit.
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  window.AssayEditorTypes.register('graphic_order', {
    label: t('portal.editor.type.graphicOrder'),
    defaults: function () {
      return { image: '', imageAlt: '', regions: [{ id: 'r1', label: '', shape: 'rect', coords: [] }, { id: 'r2', label: '', shape: 'rect', coords: [] }] };
    },
    fields: function (q, path, ui) {
      var R = window.AssayImageRegionsEditor;
      return R.imageFields(q, path, ui).concat(R.regionList(q, path, ui, { ordered: true }), [
        K.el('p', { className: 'hint', text: t('portal.editor.graphicOrder.hint') }),
        K.checkField(t('portal.editor.graphicOrder.partialCredit'), K.bind(K.el('input', { type: 'checkbox', 'data-path': path + '.partialCredit' }), q, 'partialCredit', 'bool', ui.changed)),
      ]);
    },
  });
})();
