import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Videos for Chromium's fake camera, made with ffmpeg from real photographs
 * that Debian packages ship:
 * - one face: scikit-image's astronaut.png (python3-skimage), slowly panned and zoomed so no two
 *   frames are the same;
 * - an empty scene: OpenCV's building.jpg (opencv-doc), a street front with no one in it;
 * - two faces: the astronaut's head beside its mirror image (the packages hold one frontal portrait);
 * - comes and goes: the empty street for 12 s, then the face for 12 s (looped: the student leaves and returns).
 * 320 × 240 (the recording's size), 10 fps, a few seconds (Chromium loops the file), YUV4MPEG2, cached
 * in the temp dir by a hash of the recipe.
 */
export const SKIMAGE_DATA = '/usr/lib/python3/dist-packages/skimage/data';
export const OPENCV_DATA = '/usr/share/doc/opencv-doc/examples/data';
const ASTRONAUT = path.join(SKIMAGE_DATA, 'astronaut.png');
const BUILDING = path.join(OPENCV_DATA, 'building.jpg');

export type Scene = 'one_face' | 'empty' | 'two_faces' | 'comes_and_goes';

const RECIPES: Record<Scene, { inputs: string[]; filter: string; seconds: number }> = {
  one_face: {
    inputs: [ASTRONAUT],
    // 512 → 400 px square, a 320 × 240 window drifting over the upper part, where the face is.
    filter: "[0]scale=400:400,crop=320:240:x='40+30*sin(2*PI*t/6)':y='10+12*sin(2*PI*t/4)',format=yuv420p",
    seconds: 6,
  },
  empty: {
    inputs: [BUILDING],
    filter: "[0]scale=400:276,crop=320:240:x='40+30*sin(2*PI*t/6)':y='18',format=yuv420p",
    seconds: 6,
  },
  two_faces: {
    inputs: [ASTRONAUT],
    filter: '[0]crop=300:300:60:0,scale=160:160,split[a][b];[b]hflip[c];[a][c]hstack,pad=320:240:0:40,format=yuv420p',
    seconds: 2,
  },
  comes_and_goes: {
    inputs: [BUILDING, ASTRONAUT],
    filter:
      "[0]scale=400:276,crop=320:240:x='40+30*sin(2*PI*t/6)':y='18',format=yuv420p,setsar=1,trim=duration=12,setpts=PTS-STARTPTS[e];" +
      "[1]scale=400:400,crop=320:240:x='40+30*sin(2*PI*t/6)':y='10+12*sin(2*PI*t/4)',format=yuv420p,setsar=1,trim=duration=12,setpts=PTS-STARTPTS[f];" +
      '[e][f]concat=n=2:v=1',
    seconds: 24,
  },
};

function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const hasFfmpeg = has('ffmpeg') && has('ffprobe');
export const hasPhotos = fs.existsSync(ASTRONAUT) && fs.existsSync(BUILDING);
/** What is missing for the camera tests, or null. */
export const cameraToolsMissing: string | null = !hasFfmpeg
  ? 'ffmpeg/ffprobe (apt-get install -y ffmpeg)'
  : !hasPhotos
    ? `the photographs ${ASTRONAUT} and ${BUILDING} (apt-get install -y python3-skimage opencv-doc)`
    : null;

export function fakeCameraVideo(scene: Scene): string {
  const r = RECIPES[scene];
  const hash = crypto.createHash('sha256').update(JSON.stringify(r)).digest('hex').slice(0, 12);
  const dir = path.join(os.tmpdir(), 'assay-fake-camera');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${scene}-${hash}.y4m`);
  if (fs.existsSync(file)) return file;
  const tmp = `${file}.${process.pid}.tmp.y4m`;
  const inputs = r.inputs.flatMap((i) => ['-loop', '1', '-framerate', '10', '-i', i]);
  execFileSync('ffmpeg', ['-loglevel', 'error', '-y', ...inputs, '-t', String(r.seconds), '-filter_complex', r.filter, '-r', '10', '-f', 'yuv4mpegpipe', tmp]);
  fs.renameSync(tmp, file);
  return file;
}

/**
 * The playable length of a video file in seconds: from its first frame to the end of its last, the
 * last frame lasting as long as the typical gap between frames (MediaRecorder's WebM carries neither a
 * duration field nor frame durations, so it is read from the decoded timestamps).
 */
export function playableSeconds(file: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', file], {
    encoding: 'utf8',
  });
  const pts = out
    .trim()
    .split('\n')
    .map((l) => Number(l.split(',')[0]))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  if (pts.length === 0) return 0;
  const gaps = pts.slice(1).map((p, i) => p - pts[i]!).sort((a, b) => a - b);
  const frame = gaps.length > 0 ? gaps[Math.floor(gaps.length / 2)]! : 0;
  return pts[pts.length - 1]! - pts[0]! + frame;
}

/** Decodes every frame; throws when the file is not a playable video. Returns the frame count. */
export function decodedFrames(file: string): number {
  const out = execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames,codec_name', '-of', 'json', file], {
    encoding: 'utf8',
  });
  const stream = (JSON.parse(out) as { streams: Array<{ nb_read_frames?: string; codec_name?: string }> }).streams[0];
  if (!stream) throw new Error(`${file}: no video stream`);
  return Number(stream.nb_read_frames ?? 0);
}
