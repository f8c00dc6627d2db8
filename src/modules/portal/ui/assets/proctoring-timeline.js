// The proctoring record's timeline: one player for the whole recording, the flags at their moments, the
// snapshot nearest the playhead. Without this script the page still has the flags table, the first
// segment in the player and a link to every segment file.
//
// How the segments become one recording: each segment is a complete WebM file from its own MediaRecorder
// (its own header, timestamps from 0). They are fetched in order and appended to one SourceBuffer in
// `sequence` mode, each placed by timestampOffset: right after the previous one (the recorder starts the
// next segment just before stopping the last, so the slips are a frame or two), or at its own moment when
// there is a gap (a missing segment, or a stretch the camera did not record). The player skips a gap's
// empty stretch instead of stalling on it. Times shown are the page's stamps, in UTC, to the second.
(function () {
  'use strict';

  var dataEl = document.getElementById('timeline-data');
  var video = document.getElementById('timeline-video');
  if (!dataEl || !video) return;
  var data = JSON.parse(dataEl.textContent);
  var origin = Date.parse(data.origin);
  var statusEl = document.getElementById('timeline-status');
  var nowEl = document.getElementById('timeline-now');
  var bar = document.getElementById('timeline-bar');
  var playhead = document.getElementById('timeline-playhead');
  var snapFig = document.getElementById('timeline-snapshot');
  var snapImg = document.getElementById('timeline-snapshot-img');
  var snapCap = document.getElementById('timeline-snapshot-caption');

  var t = window.AssayI18n.t;
  // The page's stamps are in UTC and say so, as the server's clockTime writes them.
  var seconds = new Intl.DateTimeFormat(window.AssayI18n.locale, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
  function clock(offsetSeconds) {
    return t('portal.timeline.clock', { time: seconds.format(new Date(origin + Math.round(offsetSeconds * 1000))) });
  }
  function say(text) { if (statusEl) statusEl.textContent = text; }
  var pct = function (x) { return Math.min(100, Math.max(0, (x / Math.max(data.span, 1)) * 100)) + '%'; };

  // ---- Where each segment sits in the player (media seconds) and on the clock (offset seconds) ---------
  // placed[i] = media start of segment i once appended; before that, its offset is the best estimate.
  var placed = data.segments.map(function () { return null; });
  var gapBefore = data.segments.map(function (s, i) {
    if (i === 0) return false;
    var prev = data.segments[i - 1];
    return s.seq !== prev.seq + 1 || s.at - (prev.at + prev.duration) > data.gapSeconds;
  });
  function mediaStart(i) { return placed[i] !== null ? placed[i] : data.segments[i].at; }

  /** Clock offset of a media time. */
  function offsetOf(t) {
    for (var i = data.segments.length - 1; i >= 0; i--) {
      if (t >= mediaStart(i)) return data.segments[i].at + (t - mediaStart(i));
    }
    return t;
  }
  /** Media time of a clock offset (a moment in a gap plays from the next segment). */
  function mediaOf(offset) {
    for (var i = 0; i < data.segments.length; i++) {
      var s = data.segments[i];
      if (offset < s.at) return mediaStart(i);
      if (offset < s.at + s.duration) return mediaStart(i) + (offset - s.at);
    }
    var last = data.segments.length - 1;
    return mediaStart(last) + data.segments[last].duration;
  }

  // ---- The drawn bar and the snapshot beside the player --------------------------------------------------
  if (bar) {
    bar.hidden = false;
    var marks = bar.querySelectorAll('[data-jump]');
    for (var m = 0; m < marks.length; m++) marks[m].style.left = pct(Number(marks[m].getAttribute('data-jump')));
    var gaps = bar.querySelectorAll('.timeline-gap');
    for (var g = 0; g < gaps.length; g++) {
      var from = Number(gaps[g].getAttribute('data-from'));
      gaps[g].style.left = pct(from);
      gaps[g].style.width = pct(Number(gaps[g].getAttribute('data-to')) - from);
    }
  }
  var shownSnapshot = null;
  function follow() {
    var offset = offsetOf(video.currentTime);
    if (nowEl) nowEl.textContent = clock(offset);
    if (playhead) playhead.style.left = pct(offset);
    var best = null;
    for (var i = 0; i < data.snapshots.length; i++) {
      var s = data.snapshots[i];
      if (!best || Math.abs(s.at - offset) < Math.abs(best.at - offset)) best = s;
    }
    if (best && best !== shownSnapshot && snapFig) {
      shownSnapshot = best;
      snapFig.hidden = false;
      snapImg.src = best.url;
      snapImg.alt = t('portal.timeline.snapshotAlt', { taken: best.taken });
      snapCap.textContent = best.received
        ? t('portal.timeline.snapshotTakenReceived', { taken: best.taken, received: best.received })
        : t('portal.timeline.snapshotTaken', { taken: best.taken });
    }
  }
  video.addEventListener('timeupdate', follow);
  video.addEventListener('seeked', follow);

  // ---- Jump to ------------------------------------------------------------------------------------------
  function jumpTo(offset) {
    video.currentTime = mediaOf(offset);
    follow();
    say(t('portal.timeline.playingFrom', { time: clock(offset) }));
    var played = video.play();
    if (played && played.catch) played.catch(function () { /* the reader pressed pause meanwhile */ });
  }
  var jumps = document.querySelectorAll('button[data-jump]');
  for (var j = 0; j < jumps.length; j++) {
    jumps[j].hidden = false;
    jumps[j].addEventListener('click', function (e) { jumpTo(Number(e.currentTarget.getAttribute('data-jump'))); });
  }

  // ---- Skipping the gaps: the player would wait forever at an empty stretch ------------------------------
  // At about 5 frames a second the last frame before a gap can end up to a frame (200 ms) short of the
  // buffered range's end, so the player may stop a little early: near a range's end, or not advancing
  // for half a second, it moves on to the next range.
  var lastT = -1;
  var stuck = 0;
  function skipGap(force) {
    var b = video.buffered;
    var t = video.currentTime;
    for (var i = 0; i < b.length - 1; i++) {
      if (t < b.start(i + 1) && (t >= b.end(i) - 0.4 || (force && t >= b.end(i) - 1))) {
        video.currentTime = b.start(i + 1);
        return;
      }
    }
  }
  video.addEventListener('waiting', function () { skipGap(false); });
  setInterval(function () {
    if (video.paused || video.seeking) { stuck = 0; lastT = -1; return; }
    stuck = video.currentTime === lastT ? stuck + 1 : 0;
    lastT = video.currentTime;
    skipGap(stuck >= 2);
  }, 250);

  // ---- Loading: every segment, in order, into one SourceBuffer -------------------------------------------
  function codecOf(bytes) {
    var text = '';
    for (var i = 0; i < Math.min(bytes.length, 4096); i++) text += String.fromCharCode(bytes[i]);
    if (text.indexOf('V_VP9') >= 0) return 'vp9';
    if (text.indexOf('V_AV1') >= 0) return 'av01.0.04M.08';
    return 'vp8';
  }
  // A file without a Tracks element is a recorder stopped before its first frame (stored before uploads
  // were checked for one): it holds no moment of the test, so it is passed over, not reported as unplayable.
  function holdsVideo(bytes) {
    for (var i = 0; i + 3 < Math.min(bytes.length, 65536); i++) {
      if (bytes[i] === 0x16 && bytes[i + 1] === 0x54 && bytes[i + 2] === 0xae && bytes[i + 3] === 0x6b) return true;
    }
    return false;
  }
  function appendTo(sb, bytes) {
    return new Promise(function (resolve, reject) {
      var done = function () { sb.removeEventListener('updateend', done); sb.removeEventListener('error', fail); resolve(); };
      var fail = function () { sb.removeEventListener('updateend', done); sb.removeEventListener('error', fail); reject(new Error('append failed')); };
      sb.addEventListener('updateend', done);
      sb.addEventListener('error', fail);
      sb.appendBuffer(bytes);
    });
  }
  async function fetchSegment(s) {
    var res = await fetch(s.url, { credentials: 'omit' });
    if (res.status === 410) throw Object.assign(new Error('expired'), { expired: true });
    if (!res.ok) return null;
    return new Uint8Array(await res.arrayBuffer());
  }

  // A segment the browser cannot parse fails the whole MediaSource (the append error ends the stream), so
  // the player starts again on a fresh one without that segment, which then shows as a gap.
  var generation = 0;
  var unplayable = {};
  var resumeAt = 0;
  async function load(ms) {
    var mine = ++generation;
    var sb = null;
    var end = 0;
    var missing = 0;
    ms.duration = data.span;
    for (var i = 0; i < data.segments.length; i++) {
      var s = data.segments[i];
      placed[i] = null;
      var bytes = null;
      if (!unplayable[i]) {
        try {
          bytes = await fetchSegment(s);
        } catch (err) {
          if (err && err.expired) return say(t('portal.timeline.linksExpired'));
        }
      }
      if (mine !== generation || ms.readyState !== 'open') return;
      if (!bytes) { missing++; continue; }
      if (!holdsVideo(bytes)) continue;
      if (!sb) {
        sb = ms.addSourceBuffer('video/webm; codecs="' + codecOf(bytes) + '"');
        sb.mode = 'sequence';
      } else {
        // Each file has its own header: the parser starts afresh, whatever the last one left unfinished.
        sb.abort();
      }
      var at = i === 0 ? 0 : gapBefore[i] || placed[i - 1] === null ? Math.max(end, s.at) : end;
      sb.timestampOffset = at;
      try {
        await appendTo(sb, bytes);
      } catch (err) {
        if (mine !== generation) return;
        unplayable[i] = true;
        return restart(t('portal.timeline.segmentUnplayable', { segment: s.seq + 1, time: clock(s.at) }));
      }
      if (mine !== generation) return;
      placed[i] = at;
      end = sb.buffered.length ? sb.buffered.end(sb.buffered.length - 1) : at + s.duration;
      if (resumeAt && end > resumeAt) { video.currentTime = resumeAt; resumeAt = 0; }
      if (i === 0 || (i + 1) % 10 === 0) follow();
      // The status is a live region: progress every 30 segments (5 minutes of recording), not every file.
      if (i + 1 < data.segments.length && (i + 1) % 30 === 0) say(t('portal.timeline.loadingProgress', { loaded: i + 1, total: data.segments.length }));
    }
    if (mine !== generation || ms.readyState !== 'open') return;
    try { ms.endOfStream(); } catch (e) { /* already ended */ }
    var lost = Object.keys(unplayable).length;
    say(missing ? t('portal.timeline.loadedExcept', { missing: missing, played: lost ? 'yes' : 'no' }) : t('portal.timeline.loaded'));
  }

  function attach() {
    var ms = new MediaSource();
    // A reload of the player (load()) reattaches the same source: start again from the first segment.
    ms.addEventListener('sourceopen', function () { load(ms); });
    video.src = URL.createObjectURL(ms);
  }
  function restart(why) {
    resumeAt = video.currentTime;
    generation++;
    say(why);
    attach();
  }

  var type = 'video/webm; codecs="vp8"';
  if (!window.MediaSource || !MediaSource.isTypeSupported(type) || data.segments.length === 0) {
    say(t('portal.timeline.cannotJoin'));
    return;
  }
  video.removeAttribute('src');
  video.preload = 'auto'; // the fallback's "none" would leave the source unattached
  attach();
  say(t('portal.timeline.loading'));
})();
