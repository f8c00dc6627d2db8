// The form editor's fields for the image types. The image, its description and the regions list (Label, Shape,
// Coordinates typed as comma-separated numbers, Remove, Add region) are shared with graphic_order as
// window.AssayImageRegionsEditor; hotspot adds a Correct box per region and Max choices. Drawing a rectangle on
// the image preview with a pointer fills the coordinates of the region last edited (the fields stay the keyboard way).
(function () {
  'use strict';
  var K = window.AssayEditorKit;
  var t = window.AssayI18n.t;
  var el = K.el;
  var ASSET = /^asset:(ast_[0-9A-Za-z]{1,64})$/;
  var SHAPES = [['rect', t('portal.editor.regions.shapeRect')], ['circle', t('portal.editor.regions.shapeCircle')], ['poly', t('portal.editor.regions.shapePoly')]];

  // Coordinates as typed: numbers when every part is one, else the text (the server names the problem beside the field).
  function coordsControl(path, region, changed) {
    var box = K.input(path, { inputmode: 'decimal', autocomplete: 'off' });
    box.value = Array.isArray(region.coords) ? region.coords.join(', ') : region.coords || '';
    box.addEventListener('input', function () {
      var parts = box.value.split(/[\s,]+/).filter(function (s) { return s !== ''; });
      var nums = parts.map(Number);
      region.coords = parts.length && nums.every(function (n) { return isFinite(n); }) ? nums : box.value;
      changed();
    });
    return box;
  }

  // Add image for a question's own picture: the upload panel writes ![alt](asset:…) into a text; here it fills the
  // Image field (and Image description, when empty) instead. Null when the page offers no uploads.
  function uploadControl(q, path, ui, image, alt) {
    if (!ui.imageControl) return null;
    var sink = { value: '', focus: function () { image.focus(); } };
    var holder = {};
    var control;
    Object.defineProperty(holder, 'md', {
      set: function (md) {
        var m = /^!\[([^\]]*)\]\((asset:ast_[0-9A-Za-z]{1,64})\)$/.exec(md);
        sink.value = '';
        if (!m) return;
        q.image = image.value = m[2];
        if (!q.imageAlt) q.imageAlt = alt.value = m[1];
        setTimeout(function () {
          var note = control.querySelector('[role=status]');
          if (note) note.textContent = t('portal.editor.regions.imageUploaded');
          ui.structure(path + '.image');
        }, 0);
      },
    });
    control = ui.imageControl(sink, holder, 'md', t('portal.editor.regions.imageSrName'));
    return control;
  }

  function imageFields(q, path, ui) {
    var image = K.bind(K.input(path + '.image', { autocomplete: 'off', placeholder: 'asset:ast_…' }), q, 'image', 'text', ui.changed);
    var alt = K.bind(K.input(path + '.imageAlt'), q, 'imageAlt', 'text', ui.changed);
    var out = [K.field(t('portal.editor.regions.image'), image, t('portal.editor.regions.imageHint'))];
    var upload = uploadControl(q, path, ui, image, alt);
    if (upload) out.push(upload);
    out.push(K.field(t('portal.editor.regions.imageAlt'), alt, t('portal.editor.regions.imageAltHint')));
    out.push(el('div', { className: 'field-row' }, [
      K.field(t('portal.editor.regions.imageWidth'), K.bind(K.input(path + '.imageWidth', { inputmode: 'numeric' }), q, 'imageWidth', 'number', ui.changed), t('portal.editor.regions.imageWidthHint')),
      K.field(t('portal.editor.regions.imageHeight'), K.bind(K.input(path + '.imageHeight', { inputmode: 'numeric' }), q, 'imageHeight', 'number', ui.changed)),
    ]));
    return out;
  }

  // The image with the regions outlined; dragging on it draws a rectangle for the region last edited.
  function preview(q, path, ui, state) {
    var m = ASSET.exec(q.image || '');
    if (!m) return null;
    var img = el('img', { src: '/portal/content-assets/' + m[1], alt: q.imageAlt || '' });
    var ns = 'http://www.w3.org/2000/svg';
    var svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('class', 'region-draw');
    svg.setAttribute('aria-hidden', 'true');
    var status = el('p', { className: 'hint', role: 'status' });
    function size() { return { w: q.imageWidth || img.naturalWidth || 1, h: q.imageHeight || img.naturalHeight || 1 }; }
    function draw(extra) {
      var s = size();
      svg.setAttribute('viewBox', '0 0 ' + s.w + ' ' + s.h);
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      (q.regions || []).concat(extra ? [extra] : []).forEach(function (r) {
        var c = Array.isArray(r.coords) ? r.coords : [];
        var shape;
        if (r.shape === 'rect' && c.length === 4) { shape = document.createElementNS(ns, 'rect'); shape.setAttribute('x', c[0]); shape.setAttribute('y', c[1]); shape.setAttribute('width', Math.max(0, c[2] - c[0])); shape.setAttribute('height', Math.max(0, c[3] - c[1])); }
        else if (r.shape === 'circle' && c.length === 3) { shape = document.createElementNS(ns, 'circle'); shape.setAttribute('cx', c[0]); shape.setAttribute('cy', c[1]); shape.setAttribute('r', c[2]); }
        else if (r.shape === 'poly' && c.length >= 6) { shape = document.createElementNS(ns, 'polygon'); var pts = []; for (var i = 0; i + 1 < c.length; i += 2) pts.push(c[i] + ',' + c[i + 1]); shape.setAttribute('points', pts.join(' ')); }
        if (shape) svg.appendChild(shape);
      });
    }
    img.addEventListener('load', function () { draw(); });
    var start = null;
    function at(e) {
      var box = svg.getBoundingClientRect();
      var s = size();
      return { x: Math.round(Math.min(Math.max(0, (e.clientX - box.left) / box.width), 1) * s.w), y: Math.round(Math.min(Math.max(0, (e.clientY - box.top) / box.height), 1) * s.h) };
    }
    function rectOf(a, b) { return { shape: 'rect', coords: [Math.min(a.x, b.x), Math.min(a.y, b.y), Math.max(a.x, b.x), Math.max(a.y, b.y)] }; }
    svg.addEventListener('pointerdown', function (e) { start = at(e); svg.setPointerCapture(e.pointerId); e.preventDefault(); });
    svg.addEventListener('pointermove', function (e) { if (start) draw(rectOf(start, at(e))); });
    svg.addEventListener('pointerup', function (e) {
      if (!start) return;
      var r = rectOf(start, at(e));
      start = null;
      var k = Math.min(state.last, (q.regions || []).length - 1);
      if (k < 0 || r.coords[2] - r.coords[0] < 2 || r.coords[3] - r.coords[1] < 2) { draw(); return; }
      q.regions[k].shape = 'rect';
      q.regions[k].coords = r.coords;
      ui.structure(path + '.regions.' + k + '.coords');
    });
    draw();
    return el('div', { className: 'field' }, [
      el('p', { className: 'hint', text: t('portal.editor.regions.drawHint') }),
      el('div', { className: 'region-draw-box' }, [img, svg]),
      status,
    ]);
  }

  // The regions: Label, Shape, Coordinates, then `extra(row, region, k, n)` (hotspot's Correct box), moves when ordered, Remove.
  function regionList(q, path, ui, opts) {
    var list = q.regions || (q.regions = []);
    var state = { last: list.length - 1 };
    var wrap = el('div', { className: 'entry-list', 'data-path': path + '.regions' });
    list.forEach(function (region, k) {
      var n = k + 1;
      var name = t('portal.editor.regions.region', { n: n });
      var row = el('div', { className: 'entry' }, [el('p', { className: 'entry-title', text: name })]);
      row.addEventListener('focusin', function () { state.last = k; });
      row.appendChild(K.field(t('portal.editor.regions.label', { n: n }), K.bind(K.input(path + '.regions.' + k + '.label'), region, 'label', 'text', ui.changed), t('portal.editor.regions.labelHint')));
      var shape = K.select(path + '.regions.' + k + '.shape', SHAPES, region.shape);
      shape.addEventListener('change', function () { region.shape = shape.value; ui.changed(); });
      row.appendChild(K.field(t('portal.editor.regions.shape', { n: n }), shape));
      row.appendChild(K.field(t('portal.editor.regions.coords', { n: n }), coordsControl(path + '.regions.' + k + '.coords', region, ui.changed), t('portal.editor.regions.coordsHint')));
      if (opts.extra) opts.extra(row, region, k, n);
      var actions = el('div', { className: 'entry-actions' });
      if (opts.ordered) {
        actions.appendChild(K.button(t('portal.editor.moveUp'), function () { if (K.move(list, k, k - 1)) ui.structure(path + '.regions.' + (k - 1) + '.label'); }, { sr: K.srAfterColon(name) }));
        actions.appendChild(K.button(t('portal.editor.moveDown'), function () { if (K.move(list, k, k + 1)) ui.structure(path + '.regions.' + (k + 1) + '.label'); }, { sr: K.srAfterColon(name) }));
      }
      actions.appendChild(K.button(t('portal.editor.remove'), function () {
        list.splice(k, 1);
        if (opts.onRemove) opts.onRemove(region);
        ui.structure(list.length ? path + '.regions.' + Math.max(0, k - 1) + '.label' : path + '.add-region');
      }, { sr: K.srAfterSpace(t('portal.editor.regions.regionName', { n: n })) }));
      row.appendChild(actions);
      wrap.appendChild(row);
    });
    wrap.appendChild(K.button(t('portal.editor.regions.add'), function () {
      list.push({ id: K.freshId(list, 'r'), label: '', shape: 'rect', coords: [] });
      ui.structure(path + '.regions.' + (list.length - 1) + '.label');
    }, { focus: path + '.add-region' }));
    return [preview(q, path, ui, state), wrap];
  }

  window.AssayImageRegionsEditor = { imageFields: imageFields, uploadControl: uploadControl, regionList: regionList };

  window.AssayEditorTypes.register('hotspot', {
    label: t('portal.editor.type.hotspot'),
    defaults: function () {
      return { image: '', imageAlt: '', regions: [{ id: 'r1', label: '', shape: 'rect', coords: [] }, { id: 'r2', label: '', shape: 'rect', coords: [] }], correctRegionIds: [] };
    },
    fields: function (q, path, ui) {
      return imageFields(q, path, ui).concat(regionList(q, path, ui, {
        extra: function (row, region, k, n) {
          var box = el('input', { type: 'checkbox', 'data-path': path + '.correctRegionIds' });
          box.checked = (q.correctRegionIds || []).indexOf(region.id) >= 0;
          box.addEventListener('change', function () {
            var ids = (q.correctRegionIds || []).filter(function (id) { return id !== region.id; });
            if (box.checked) ids.push(region.id);
            q.correctRegionIds = q.regions.map(function (r) { return r.id; }).filter(function (id) { return ids.indexOf(id) >= 0; });
            ui.changed();
          });
          row.appendChild(K.checkField(t('portal.editor.hotspot.correct', { n: n }), box));
        },
        onRemove: function (region) { q.correctRegionIds = (q.correctRegionIds || []).filter(function (id) { return id !== region.id; }); },
      }), [
        K.field(t('portal.editor.hotspot.maxChoices'), K.bind(K.input(path + '.maxChoices', { inputmode: 'numeric' }), q, 'maxChoices', 'number', ui.changed), t('portal.editor.hotspot.maxChoicesHint')),
      ]);
    },
  });
})();
