import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, jsonForScript, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import type { FlagView, ProctoringReport } from '../../proctoring/get-proctoring-report.js';

/**
 * The record page's one timeline: a single player for the whole recording
 * (proctoring-timeline.js joins the 10-second segments with Media Source
 * Extensions), the flags drawn at their moments, the snapshot nearest the
 * playhead, and the gaps where nothing was recorded. Positions are seconds
 * from the first segment's start, on the page's clock as stamped (the server
 * refuses stamps outside the attempt). Institutions have no time zone of
 * their own in Assay yet, so every time here is UTC, to the second, and says so.
 */

const SECONDS = { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' } as const;
/** What proctoring-timeline.js formats in the browser (window.AssayI18n.t): the record page sends them with the timeline. */
export const TIMELINE_SCRIPT_MESSAGES: readonly MessageKey[] = [
  'portal.timeline.clock', 'portal.timeline.snapshotAlt', 'portal.timeline.snapshotTakenReceived', 'portal.timeline.snapshotTaken',
  'portal.timeline.playingFrom', 'portal.timeline.linksExpired', 'portal.timeline.segmentUnplayable', 'portal.timeline.loadingProgress',
  'portal.timeline.loadedExcept', 'portal.timeline.loaded', 'portal.timeline.cannotJoin', 'portal.timeline.loading',
];

/** "11:12:23 UTC" in English. */
export const clockTime = (d: Date, t: Translator = portalTranslator()) => t.dateWith(d, SECONDS);

/** A time to the second for tables: "26 Nov 2026, 11:12:23 UTC" in English, machine-readable in `datetime`. */
export function whenExact(d: Date | null | undefined, t: Translator = portalTranslator()): SafeHtml {
  return d ? html`<time datetime="${d.toISOString()}">${t.dateWith(d, { day: 'numeric', month: 'short', year: 'numeric', ...SECONDS })}</time>` : html`<span class="none">–</span>`;
}

/** Severity by shape and word, never colour alone. */
const SHAPES = { critical: '◆', warning: '▲', info: '●' } as const;
export function severityBadge(severity: FlagView['severity'], t: Translator = portalTranslator()): SafeHtml {
  return html`<span class="badge badge-severity-${severity}"><span class="shape" aria-hidden="true">${SHAPES[severity]}</span> ${t.t('portal.proctoring.severity', { severity })}</span>`;
}

/** A stretch longer than this between one segment's end and the next one's start is shown as a gap. */
export const GAP_SECONDS = 1.5;

export interface TimelinePlan {
  /** The first segment's start: second 0 of the player. */
  origin: Date;
  span: number;
  segments: Array<{ seq: number; url: string; at: number; duration: number }>;
  gaps: Array<{ from: number; to: number; missing: number }>;
}

/** Where each segment and gap sits, in seconds from the first segment's start. */
export function planTimeline(r: ProctoringReport): TimelinePlan | null {
  const segs = r.recording.segments;
  if (segs.length === 0) return null;
  const origin = segs[0]!.startedAt;
  const at = (d: Date) => (d.getTime() - origin.getTime()) / 1000;
  const gaps: TimelinePlan['gaps'] = [];
  let end = 0;
  segs.forEach((s, i) => {
    const start = at(s.startedAt);
    const missing = i === 0 ? 0 : s.seq - segs[i - 1]!.seq - 1;
    if (i > 0 && (start - end > GAP_SECONDS || missing > 0)) gaps.push({ from: end, to: Math.max(start, end), missing });
    end = Math.max(end, start + s.durationMs / 1000);
  });
  return { origin, span: end, segments: segs.map((s) => ({ seq: s.seq, url: s.url, at: at(s.startedAt), duration: s.durationMs / 1000 })), gaps };
}

export function flagOffset(plan: TimelinePlan, f: FlagView): number {
  return (f.startedAt.getTime() - plan.origin.getTime()) / 1000;
}

/**
 * The player, the drawn timeline and the snapshot beside the playhead. The
 * player's fallback without the script is the first segment (the segment
 * list below links every file); the drawn bar is a picture of the flags
 * table, so it is hidden from screen readers, and the table's Jump to
 * buttons are the keyboard's way in. The CSP forbids style attributes, so
 * the script places the marks (and shows the bar) from their data-*.
 */
export function timelineSection(r: ProctoringReport, plan: TimelinePlan, kindLabel: (k: string) => string, t: Translator = portalTranslator()): SafeHtml {
  const first = plan.segments[0]!;
  const data = {
    origin: plan.origin.toISOString(),
    span: plan.span,
    gapSeconds: GAP_SECONDS,
    segments: plan.segments,
    gaps: plan.gaps,
    snapshots: r.snapshots.map((s) => ({
      url: s.url,
      at: (s.takenAt.getTime() - plan.origin.getTime()) / 1000,
      taken: clockTime(s.takenAt, t),
      received: s.receivedAt ? clockTime(s.receivedAt, t) : null,
    })),
  };
  return html`<section class="timeline" aria-labelledby="timeline-title" data-timeline>
<h2 id="timeline-title">${t.t('portal.proctoring.timeline.title')}</h2>
<p class="hint">${richText(t, 'portal.proctoring.timeline.hint', { from: clockTime(plan.origin, t), jumpTo: html`<strong>${t.t('portal.proctoring.jumpTo')}</strong>` })}</p>
<div class="timeline-media">
<div class="timeline-player">
<video controls preload="none" src="${first.url}" id="timeline-video" width="320" height="240" aria-label="${t.t('portal.proctoring.timeline.videoLabel')}" aria-describedby="timeline-clock"></video>
<p class="timeline-clock" id="timeline-clock">${richText(t, 'portal.proctoring.timeline.at', { time: html`<span id="timeline-now">${clockTime(plan.origin, t)}</span>` })}</p>
<p class="hint" id="timeline-status" role="status" aria-live="polite" data-fallback>${t.t('portal.proctoring.timeline.noScript')}</p>
</div>
<figure class="timeline-snapshot" id="timeline-snapshot" hidden>
<img id="timeline-snapshot-img" alt="" width="160" height="120">
<figcaption id="timeline-snapshot-caption">${t.t('portal.proctoring.timeline.noSnapshotYet')}</figcaption>
</figure>
</div>
<div class="timeline-bar" id="timeline-bar" aria-hidden="true" hidden>
<div class="timeline-track">
${plan.gaps.map((g) => html`<span class="timeline-gap" data-from="${String(g.from)}" data-to="${String(g.to)}" title="${t.t('portal.proctoring.timeline.notRecorded')}"></span>`)}
${r.flags.map(
  (f, i) => html`<button type="button" tabindex="-1" class="timeline-flag timeline-flag-${f.severity}" data-jump="${String(
    Math.max(0, flagOffset(plan, f)),
  )}" data-flag="${String(i + 1)}" title="${t.t('portal.proctoring.timeline.flagTitle', { kind: kindLabel(f.kind), severity: f.severity, time: clockTime(f.startedAt, t) })}">${SHAPES[f.severity]}</button>`,
)}
<span class="timeline-playhead" id="timeline-playhead"></span>
</div>
<div class="timeline-scale"><span>${clockTime(plan.origin, t)}</span><span>${clockTime(new Date(plan.origin.getTime() + plan.span * 1000), t)}</span></div>
<ul class="timeline-legend"><li><span class="timeline-flag-critical">◆</span> ${t.t('portal.proctoring.severity', { severity: 'critical' })}</li><li><span class="timeline-flag-warning">▲</span> ${t.t(
  'portal.proctoring.severity',
  { severity: 'warning' },
)}</li><li><span class="timeline-flag-info">●</span> ${t.t('portal.proctoring.severity', { severity: 'info' })}</li><li><span class="timeline-gap-key"></span> ${t.t('portal.proctoring.timeline.notRecorded')}</li></ul>
</div>
${plan.gaps.length > 0
  ? html`<p class="notice">${t.t('portal.proctoring.timeline.gaps', {
      gaps: plan.gaps
        .map((g) => {
          const from = clockTime(new Date(plan.origin.getTime() + g.from * 1000), t);
          const to = clockTime(new Date(plan.origin.getTime() + g.to * 1000), t);
          return g.missing > 0 ? t.t('portal.proctoring.timeline.gapMissing', { from, to, missing: g.missing }) : t.t('portal.proctoring.timeline.gap', { from, to });
        })
        .join('; '),
    })}</p>`
  : ''}
<script type="application/json" id="timeline-data">${jsonForScript(data)}</script>
<script src="/portal/assets/proctoring-timeline.js" defer></script>
</section>`;
}

/** The flag's Jump to button (shown by the script; the time beside it works without). */
export function jumpButton(plan: TimelinePlan | null, f: FlagView, kind: string, t: Translator = portalTranslator()): SafeHtml | string {
  if (!plan) return '';
  return html` <button type="button" class="button small jump" data-jump="${String(Math.max(0, flagOffset(plan, f)))}" hidden>${t.t('portal.proctoring.jumpTo')}<span class="sr-only"> ${t.t(
    'portal.proctoring.kindAt',
    { kind, time: clockTime(f.startedAt, t) },
  )}</span></button>`;
}
