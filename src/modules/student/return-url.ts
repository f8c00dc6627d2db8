/**
 * The "Return to <institution>" target: the assignment's callbackUrl with
 * `partnerAssignmentId`, `externalUserId` and `status` appended (spec 2.5).
 * The callbackUrl's own query parameters are kept byte for byte, except
 * any that carry one of these three names, which would make the partner
 * read the wrong value; ours are added with URLSearchParams encoding.
 */
const OURS = ['partnerAssignmentId', 'externalUserId', 'status'];

export function returnUrl(callbackUrl: string, p: { assignmentId: string; externalUserId: string; status: string }): string {
  const url = new URL(callbackUrl);
  const kept = url.search
    .replace(/^\?/, '')
    .split('&')
    .filter((part) => part !== '' && !OURS.includes(decodeName(part)));
  const added = new URLSearchParams({ partnerAssignmentId: p.assignmentId, externalUserId: p.externalUserId, status: p.status });
  url.search = [...kept, added.toString()].join('&');
  return url.toString();
}

function decodeName(part: string): string {
  const name = part.split('=')[0]!.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
